"""`rlaif export N OUT`: epoch N's chosen policy as a model anyone can load, without rlaif or PEFT.

By default the LoRA adapter is merged into the base weights (PEFT's `merge_and_unload`, in float32,
then cast to the export's dtype) and written with the tokenizer as one standard transformers
directory: `AutoModelForCausalLM.from_pretrained(OUT)`, `vllm serve OUT`, or an upload to the Hub
(`hf upload USER/NAME OUT`). `--adapter` writes the PEFT adapter alone (megabytes
instead of the whole model; load it over the same base model). Beside the weights: `rlaif.json`
(where the policy came from: run, epoch, update variant and fingerprint, base model, the prompt
settings it was trained with, its eval's figures) and a model card, `README.md`.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Callable

from pipeline.config.errors import RunError
from pipeline.store.artifacts import atomic_dir, clean_stale, corrupted_file, damage, read_manifest

DTYPES = ("auto", "float32", "bfloat16", "float16")


def export_policy(r, n: int, out: Path, variant: str | None = None, adapter_only: bool = False,
                  dtype: str = "auto", force: bool = False, echo: Callable[[str], None] = print) -> dict:
    """Write epoch n's chosen policy (or its update variant `variant`) to `out`; its rlaif.json."""
    d, m = _policy_dir(r, n, variant)
    out = Path(out).expanduser()
    _check_out(r, out, force)
    from pipeline.config.schema import NEUTRAL
    trained = m.get("config", {})   # a key an older manifest lacks had its NEUTRAL value then, not this config's
    student = {k: trained.get(f"student.{k}", NEUTRAL.get(f"student.{k}", getattr(r.cfg.student, k)))
               for k in ("model", "system_prompt", "prompt_format", "chat_template_kwargs")}
    if student["model"] != r.cfg.student.model:
        raise RunError(f"{d} was trained on student.model={student['model']!r}, but this config says "
                       f"{r.cfg.student.model!r}: export with the run's own config (--config)")
    from pipeline.engines.model import resolve
    ev = r.eval_of(n, m["fingerprint"])
    info = {"run": r.cfg.run.name, "epoch": n, "update": d.name, "fingerprint": m["fingerprint"],
            "base_model": student["model"], "base_model_path": resolve(student["model"]), "merged": not adapter_only,
            **{k: student[k] for k in ("system_prompt", "prompt_format", "chat_template_kwargs")},
            "eval": dict(ev[1].get("figures") or {}) if ev else None, "eval_vs_base": _against_base(r, n, ev),
            # the reward it was trained on (its epoch's reward stage): the teacher ratio, or the judge's score as it is
            "reward": ((r.epoch_manifests(n).get("reward") or {}).get("config") or {}).get("reward", {}).get("kind")}
    clean_stale(out.parent, out.name)   # a killed export's partial weights
    theirs = _theirs(out)
    with atomic_dir(out, carry=theirs) as tmp:
        info["dtype"] = _write(r.cfg, d / "adapter", tmp, adapter_only, dtype, echo)
        info["files"] = sorted([f.name for f in tmp.iterdir()] + ["rlaif.json", "README.md"])
        (tmp / "rlaif.json").write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")
        (tmp / "README.md").write_text(model_card(info))
        mask = os.umask(0)
        os.umask(mask)
        for f in tmp.iterdir():   # safetensors writes its file 0600: every file as the user's umask makes them
            f.chmod(0o666 & ~mask)
        clash = [n for n in theirs if (tmp / n).exists()]
        if clash:   # (an earlier export that listed no files, and a file of yours named as one of ours)
            raise RunError(f"{out} holds {', '.join(clash)}, which this export writes too: move it and export again")
    if theirs:
        echo(f"  kept what the earlier export did not write: {', '.join(theirs)}")
    return info


# what an export writes (an export whose rlaif.json lists no `files` was written by an older version)
_EXPORT_FILES = ("rlaif.json", "README.md", "config.json", "generation_config.json", "tokenizer.json",
                 "tokenizer_config.json", "special_tokens_map.json", "chat_template.jinja", "vocab.json", "merges.txt",
                 "added_tokens.json", "tokenizer.model", "adapter_config.json")


def _theirs(out: Path) -> tuple[str, ...]:
    """The entries of an earlier export's directory that no export wrote (a clone's .git, your notes): kept
    when --force replaces the export."""
    if not (out / "rlaif.json").is_file():
        return ()
    try:
        ours = set(json.loads((out / "rlaif.json").read_text()).get("files") or ())
    except (ValueError, AttributeError):
        ours = set()
    return tuple(sorted(e.name for e in out.iterdir() if e.name not in ours and e.name not in _EXPORT_FILES
                        and not e.name.endswith((".safetensors", ".safetensors.index.json"))))


def _check_out(r, out: Path, force: bool) -> None:
    """OUT is new, an empty directory, or (with force) an earlier export: never a file, a directory of
    other files, nor one holding or inside the run, the judge cache, the working directory or home."""
    from pipeline.stages.judging import cache_dir
    where = out.resolve()
    for name, p, inside in (("the run", r.run_dir, False), ("the judge cache", cache_dir(r.cfg), False),
                            ("the working directory", Path.cwd(), True), ("your home", Path.home(), True)):
        p = Path(p).expanduser().resolve()
        if where == p or where in p.parents:
            raise RunError(f"{out} is or holds {name} ({p}): export to a new directory, not one that holds it")
        if not inside and p in where.parents:
            raise RunError(f"{out} is inside {name} ({p}): export to a new directory outside it")
    if not out.exists() and not out.is_symlink():
        return
    if not out.is_dir() or out.is_symlink():
        raise RunError(f"{out} exists and is not a directory: give a new directory")
    if not any(out.iterdir()):
        return
    if not force:   # (--force is offered only where it would work: over an earlier export)
        raise RunError(f"{out} exists and is not empty: give a new directory" + (
            ", or --force to replace the export it holds" if (out / "rlaif.json").is_file() else
            " (it holds no export of rlaif, no rlaif.json, which --force replaces alone), or empty this one yourself"))
    if not (out / "rlaif.json").is_file():
        raise RunError(f"{out} holds files that are not an export of rlaif (no rlaif.json): --force replaces only an "
                       "earlier export; give a new directory, or empty this one yourself")


def _policy_dir(r, n: int, variant: str | None) -> tuple[Path, dict]:
    """The update directory of epoch n's chosen policy (or of `variant`), checked intact."""
    if variant is not None:
        d = r.find_variant(n, variant)
        m = read_manifest(d)
    else:
        chosen = r.chosen_update(n)
        if chosen is None:
            raise RunError(f"epoch {n} has no finished update in {r.epoch_dir(n)}: nothing to export"
                           + (" (epoch 0 is the base model unless the supervised warm-start ran: `rlaif epoch 0`)"
                              if n == 0 else f"; run `rlaif epoch {n}` first"))
        d, m = chosen
    bad = corrupted_file(d, m) if m else "manifest.json"
    if bad is not None:
        raise RunError(f"{d}: {bad} {damage(d, bad)}; "
                       f"remake it (`rlaif epoch {n} --force`) or export another variant (--variant)")
    return d, m


def _write(cfg, adapter: Path, tmp: Path, adapter_only: bool, dtype: str, echo) -> str:
    """The weights and the tokenizer into tmp; the dtype written."""
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    from pipeline.engines.model import ModelError, _missing, check_adapter_base, load_tokenizer, resolve
    name = resolve(cfg.student.model)
    check_adapter_base(adapter, name)
    load_tokenizer(cfg.student).save_pretrained(tmp)
    if adapter_only:   # adapter_config.json names the base it loads over (PeftModel.from_pretrained(base, OUT))
        for f in adapter.iterdir():
            shutil.copy2(f, tmp / f.name)
        return "adapter"
    try:   # the base in its checkpoint's own dtype: 2 bytes a weight for a bf16 checkpoint, not float32's 4
        want = _dtype(dtype, name)   # (a float32 export loads float32 whatever config.json says it holds)
        load = "float32" if want == "float32" else _dtype("auto", name)
        base = AutoModelForCausalLM.from_pretrained(name, dtype=getattr(torch, load))
    except (OSError, ValueError) as e:
        raise ModelError(_missing(cfg.student.model, e)) from None
    echo(f"  merging {adapter.parent.name}'s adapter into {cfg.student.model} ({want})")
    model = merge_lora(PeftModel.from_pretrained(base, str(adapter)), getattr(torch, want))
    model.save_pretrained(tmp, safe_serialization=True)
    return want


def merge_lora(model, want):
    """The base model of a PeftModel with each LoRA delta merged: W + s B A summed in float32 and rounded
    once to `want` (what merging a float32 copy of the whole model did, bit for bit:
    tests/test_export_merge.py), one weight at a time (a weight two adapted layers share, tied embeddings,
    takes both deltas before its one rounding); every other weight converted from the checkpoint's dtype.
    An adapter beyond plain LoRA (DoRA or another variant, LoRA biases, whole modules or token rows saved)
    is merged by PEFT in float32 instead."""
    import torch
    from peft.tuners.lora import LoraLayer
    layers = [m for m in model.modules() if isinstance(m, LoraLayer)]
    conf = next(iter(model.peft_config.values()), None)
    if (getattr(model, "modules_to_save", None) or getattr(conf, "trainable_token_indices", None)
            or any(any(getattr(m, "use_dora", {}).values()) or any(getattr(m, "lora_bias", {}).values())
                   or any(v is not None for v in getattr(m, "lora_variant", {}).values()) for m in layers)):
        return model.float().merge_and_unload().to(want)
    shared: dict[int, tuple] = {}    # id(weight) -> (weight, its float32 sum)
    with torch.no_grad():
        for m in layers:
            weight = m.get_base_layer().weight
            _, merged = shared.setdefault(id(weight), (weight, weight.detach().float().clone()))
            for name in m.active_adapters:
                if name in m.lora_A or name in m.lora_embedding_A:
                    merged += m.get_delta_weight(name).float()   # float32: PEFT loads a bf16 base's adapter so
        for weight, merged in shared.values():
            weight.data = merged.to(want)
    return model.unload().to(want)


def _dtype(spec: str, name: str) -> str:
    """auto: the dtype the base model's checkpoint is stored in, as its config.json says (read before
    loading: a model loaded in float32 reports float32), float32 when it says none."""
    if spec != "auto":
        return spec
    from transformers import AutoConfig
    config = AutoConfig.from_pretrained(name)
    stored = getattr(config, "dtype", None) or getattr(config, "torch_dtype", None)
    stored = str(stored).removeprefix("torch.") if stored is not None else "float32"
    return stored if stored in DTYPES[1:] else "float32"


def _against_base(r, n: int, ev) -> list[str] | None:
    """`rlaif compare-evals RUN@0 <this policy's eval>` without its local paths, where the run has an
    eval of the base model (`rlaif eval 0`); else None."""
    if not ev or n < 1:
        return None
    from pipeline.metrics.evals import compare_evals, resolve_eval
    try:
        lines = compare_evals([resolve_eval(f"{r.run_dir}@0")], [ev[0]])
    except (ValueError, OSError):   # no base eval, or none that shares a source with this one
        return None
    return [x.replace("B - A per problem", "this policy - the base model, per problem")
            for x in lines if not x.startswith(("A: ", "B: "))]


def model_card(info: dict) -> str:
    """A Hugging Face model card: front matter the Hub reads, then how to load and prompt the model."""
    base = info["base_model"]
    hub = "/" in base and not Path(base).expanduser().exists()
    path = base if hub else info["base_model_path"]
    warm = info["epoch"] == 0   # the supervised warm-start on the teacher's answers, before any RL
    front = ["---", "library_name: " + ("transformers" if info["merged"] else "peft"), "tags:", "- rlaif",
             "- sft" if warm else "- grpo"]
    if hub:
        front.append(f"base_model: {base}")
    front.append("---")
    msgs = (f'[{{"role": "system", "content": {json.dumps(info["system_prompt"])}}}, '
            if info["system_prompt"] else "[") + '{"role": "user", "content": "Write is_even(n)."}]'
    if info["merged"]:
        load = ("from transformers import AutoModelForCausalLM, AutoTokenizer\n\n"
                "model = AutoModelForCausalLM.from_pretrained(PATH, dtype=\"auto\")\ntok = AutoTokenizer.from_pretrained(PATH)\n")
    else:
        load = ("from peft import PeftModel\nfrom transformers import AutoModelForCausalLM, AutoTokenizer\n\n"
                f"base = AutoModelForCausalLM.from_pretrained({json.dumps(path)}, dtype=\"auto\")  # the base model it was trained on\n"
                "model = PeftModel.from_pretrained(base, PATH)\ntok = AutoTokenizer.from_pretrained(PATH)\n")
    if info["prompt_format"] == "chat":
        kw = "".join(f", {k}={v!r}" for k, v in (info["chat_template_kwargs"] or {}).items())
        load += (f"inputs = tok.apply_chat_template({msgs}, add_generation_prompt=True, return_tensors=\"pt\", "
                 f"return_dict=True{kw})\n")
    else:
        pre = (info["system_prompt"] + "\n\n") if info["system_prompt"] else ""
        load += f"inputs = tok({json.dumps(pre + 'def is_even(n):')}, return_tensors=\"pt\")\n"
    # greedy (the base model's generation_config may ask for sampling)
    load += ("out = model.generate(**inputs, max_new_tokens=256, do_sample=False)\n"
             "print(tok.decode(out[0][inputs[\"input_ids\"].shape[1]:], skip_special_tokens=True))\n")
    ev = info.get("eval") or {}
    figures = "".join(f"- `{k}`: {v:.4g}\n" for k, v in ev.items() if isinstance(v, (int, float)))
    return "\n".join(front) + f"""

# {info['run']}, epoch {info['epoch']}

{"The supervised warm-start of rlaif (fine-tuned on the teacher's answers, before any reinforcement learning)"
  if warm else "A policy trained with rlaif (reinforcement learning from " + (
      "the judge's score)" if info.get("reward") == "direct" else "a teacher-relative reward)")} on
`{base}`: run `{info['run']}`, epoch {info['epoch']}, update `{info['update']}`
({'the LoRA adapter merged into the base weights, ' + info['dtype'] if info['merged'] else 'a PEFT LoRA adapter'}).
It was trained on prompts built as below ({'the chat template' if info['prompt_format'] == 'chat' else 'raw text'}{', with its system prompt' if info['system_prompt'] else ''}):
prompt it the same way.

````python
PATH = "."  # this directory, or its Hub id
{load}````
""" + (f"\nThe run's eval of this policy (`rlaif eval`):\n\n{figures}" if figures else "") + \
        (f"\nAgainst the base model on the same problems (its eval at epoch 0, paired by problem; a difference "
         f"whose interval holds 0 is within noise):\n\n```text\n{chr(10).join(info['eval_vs_base'])}\n```\n"
         if info.get("eval_vs_base") else "") + \
        "\nWhere it came from, exactly: `rlaif.json`.\n"
