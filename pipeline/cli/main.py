"""`rlaif` command line. Every command takes `--config FILE` and `key.sub=value` overrides."""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading

if os.environ.get("RANK", "0") != "0":  # several processes: rank 0's progress bars speak for all
    os.environ.setdefault("TQDM_DISABLE", "1")  # (tqdm reads it when it is imported)
    # and its warnings (the config's and preflight's are the same on every rank): the other ranks say only
    # their errors, as accelerate's get_logger logs on the main process only by default (this tool's own
    # warnings: the libraries' are left alone). The root handlers get the same filter once made (_main).
    logging.getLogger("rlaif").addFilter(lambda record: _rank0_speaks(record))
    import warnings
    warnings.filterwarnings("ignore", category=UserWarning, module=r"(pipeline|judges|data|curriculum)(\.|$)")

OURS = ("rlaif", "pipeline", "judges", "data", "curriculum")
"""Loggers of this tool's own packages (the "rlaif" logger and any named by its module)."""


def _rank0_speaks(record: logging.LogRecord) -> bool:
    """On a rank other than 0: keep errors, and whatever another library logs; drop this tool's warnings."""
    return record.levelno >= logging.ERROR or record.name.split(".")[0] not in OURS

from pipeline.store import dist
from pipeline.store.artifacts import ArtifactError
from pipeline.cli.commands_read import (cmd_compare, cmd_compare_evals, cmd_metrics, cmd_promote, cmd_report,
                                        cmd_samples, cmd_status)
from pipeline.cli.commands_tools import cmd_cache, cmd_config, cmd_export, cmd_judge
from pipeline.cli.commands_train import cmd_epoch, cmd_eval, cmd_sweep
from pipeline.cli.common import config_twice, count as _count, launch_refusal, path_error, subparser, level as _level, positive as _positive, setup_logging
from pipeline.config.base import ConfigError
from pipeline.config.file import load_config
from pipeline.config.schema import Config


def build_parser() -> argparse.ArgumentParser:
    from importlib.metadata import PackageNotFoundError, version
    try:
        ours = version("rlaif")
    except PackageNotFoundError:
        ours = "unknown (not installed)"
    ap = argparse.ArgumentParser(prog="rlaif", description="RLAIF teacher distillation with cached judging. "
                                 "Every command takes --config FILE and key.sub=value overrides; "
                                 "`rlaif COMMAND --help` for one command.")
    ap.add_argument("--config", default="config.yaml", help=CONFIG_HELP)
    ap.add_argument("--version", action="version", version=f"rlaif {ours}")
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    def with_overrides(p, epoch: bool | str = False):
        if epoch:
            p.add_argument("n", type=_count, help=epoch if isinstance(epoch, str) else "epoch number (1, 2, ...)")
        # default=[]: argparse calls a nargs="*" positional without one required in its error message
        p.add_argument("overrides", nargs="*", default=[], metavar="key.sub=value",
                       help="config overrides (`rlaif config show --doc` lists every key)")
        # --config after the command too (`rlaif epoch 2 --config my.yaml`); SUPPRESS keeps the global one otherwise
        p.add_argument("--config", default=argparse.SUPPRESS, help=CONFIG_HELP)
        return p

    def with_processes(p):
        p.add_argument("--processes", type=_positive, default=1, metavar="N",
                       help="run on N processes (one per GPU; on a CPU, N processes over gloo): launches `accelerate launch --num_processes N` for you")
        p.add_argument("--accelerate-config", metavar="FILE",
                       help="with --processes N of 2 or more: accelerate's config file (FSDP, several machines; the "
                            "update refuses DeepSpeed)")
        return p

    p = with_overrides(sub.add_parser("epoch", help="bring the run up to epoch N: epochs 1..N, finished stages reused",
                                      description="Run epochs 1 to N (epoch N alone with --only or --force): each epoch's stages whose inputs and settings "
                                      "are unchanged are reused from disk, the rest run (a killed run resumes where it "
                                      "stopped). One line per epoch, then the report's flags. N=0 runs only the "
                                      "supervised warm-start (update.warm_start), which epoch 1 otherwise runs "
                                      "first."),
                       epoch="epoch number: 1, 2, ... (0: the supervised warm-start alone)")
    from pipeline.stages import STAGES
    p.add_argument("--only", choices=[st.name for st in STAGES], metavar="STAGE",
                   help="run only this stage of epoch N (its inputs must be done; epoch N alone, not epochs 1 "
                        "to N): one of " + ", ".join(st.name for st in STAGES))
    p.add_argument("--force", action="store_true", help="recompute even if up to date (judge cache still used); "
                   "runs epoch N alone (epoch N-1 must have finished), not epochs 1 to N")
    p.add_argument("--dry-run", action="store_true", help="show what would run; run nothing")
    p.add_argument("--ignore-early-stop", action="store_true", help="run even if early stopping says stop")
    p.add_argument("--verbose", action="store_true",
                   help="N > 1: every stage's lines (running, done, reused) and progress bars, not one line per "
                        "epoch (run.log_level=DEBUG does the same)")
    with_processes(p)
    p.set_defaults(fn=cmd_epoch)
    p = with_overrides(sub.add_parser("update", help="rerun only epoch N's update into a side-by-side variant",
                                      description="Rerun only epoch N's update, from the samples, judgements and "
                                      "logprobs on disk (`rlaif epoch N` must have run), with the update.* (or select.*) overrides "
                                      "given: a variant beside the first, with no training sample drawn and no paid "
                                      "judge call on them (its eval answers the held-out problems, scored by the "
                                      "execution judge, or by the run's judge where a problem has no tests: an API "
                                      "judge is paid for those). `rlaif compare N` shows the "
                                      "variants side by side, `rlaif promote N VARIANT` chooses the one epoch N+1 "
                                      "starts from; until one is promoted, the newest variant is the chosen "
                                      "policy."), epoch=True)
    p.add_argument("--dry-run", action="store_true", help="show what would run; run nothing")
    with_processes(p)
    p.set_defaults(fn=cmd_epoch)
    p = with_overrides(sub.add_parser("sweep", help="several update-only variants of epoch N over a grid, in one process",
                                      description="`rlaif update N` for every combination of the --grid axes, in one "
                                      "command (torch and the libraries imported once per process), then `rlaif compare N`'s table. Epoch N must "
                                      "have run."), epoch=True)
    p.add_argument("--grid", action="append", default=[], metavar="update.KEY=V1,V2",
                   help="an axis of the grid (repeat for more; the variants are every combination)")
    with_processes(p)
    p.set_defaults(fn=cmd_sweep)
    p = with_overrides(sub.add_parser("replay", help="run epoch N with judge.mode=replay (cache only, offline)",
                                      description="Run epoch N with judge.mode=replay: every judgement and teacher "
                                      "answer comes from the cache, none is paid for; answers missing from it fail the "
                                      "stage, saying how many (--dry-run counts them first)."), epoch=True)
    p.add_argument("--dry-run", action="store_true", help="show what would run and the judgements missing from the "
                                                          "cache; run nothing")
    p.add_argument("--force", action="store_true", help="remake epoch N's stages even where finished, from the cache; "
                   "without it a replay refuses to replace finished prompts or answers (another config's, another "
                   "parent policy's) whose judgements the cache may not hold")
    with_processes(p)
    p.set_defaults(fn=cmd_epoch)
    p = with_overrides(sub.add_parser("eval", help="evaluate epoch N's chosen policy on held-out problems (0 = base model)",
                                      description="Evaluate epoch N's chosen policy on the eval sources (eval.*: "
                                      "greedy by default, eval.num_samples / eval.temperature for sampled pass@1); "
                                      "N=0 is the base model, or with --warm-start the supervised warm-start."),
                       epoch="epoch number: 1, 2, ... (0: the base model; with --warm-start, the warm-start)")
    p.add_argument("--warm-start", action="store_true",
                   help="with N=0: evaluate the supervised warm-start's adapter (`rlaif epoch 0`) instead of the base model")
    p.add_argument("--force", action="store_true",
                   help="make the eval again where it is finished (its judgements come from the cache; answers the "
                        "judge could not score, eval/unscored, are judged again)")
    with_processes(p)
    p.set_defaults(fn=cmd_eval)
    p = with_overrides(sub.add_parser("compare", help="show epoch N's update variants side by side",
                                      description="Epoch N's update variants (from `rlaif update N` or `rlaif sweep "
                                      "N`) side by side: their settings, losses, KL, entropy and evals; the chosen one "
                                      "marked *, those trained on another selection than its current one ~."), epoch=True)
    p.set_defaults(fn=cmd_compare)
    p = sub.add_parser("compare-evals", help="is B better than A beyond noise? paired, with a 95%% interval over problems",
                       description="Compare two evals of the same problems (A: e.g. the base model, B: a trained "
                       "policy) problem by problem: the mean paired difference of sampled pass@1, graded score and "
                       "reference NLL with a t interval over problems, the probability of improvement, won/lost/tied. "
                       "Several seeds: comma-separated lists, paired by position (one A against several Bs compares "
                       "each B with it; several As against another number of Bs are draws of one model, averaged); "
                       "with 3 or more B seeds the interval also carries the seeds' own variance, never narrower "
                       "than Student's t over their means.")
    p.add_argument("a", help="eval directory (runs/x/epoch-000/eval-1a2b3c4d) or RUN_DIR@N: the eval of epoch N's "
                             "chosen update (the newest, if several; an error if that update has none, even when "
                             "other variants have one; N=0: the base model's eval, never the warm-start's), or N "
                             "alone: epoch N of this config's run; comma-separated for several seeds")
    p.add_argument("b", help="the same, for the other side")
    p.add_argument("--confidence", type=_level, default=0.95, help="interval's confidence level (default 0.95)")
    with_overrides(p)
    p.set_defaults(fn=cmd_compare_evals)
    p = sub.add_parser("promote", help="choose the policy epoch N+1 starts from",
                       description="Make one of epoch N's update variants (`rlaif compare N` lists them) the policy "
                       "epoch N+1 starts from.")
    p.add_argument("n", type=_count, help="epoch number")
    p.add_argument("variant", help="variant directory name (update-1a2b3c4d) or its fingerprint prefix")
    with_overrides(p)
    p.set_defaults(fn=cmd_promote)
    p = sub.add_parser("export", help="write epoch N's chosen policy as a model that loads without rlaif",
                       description="Write epoch N's chosen policy (or --variant's) to OUT as one standard "
                       "transformers directory: the LoRA adapter merged into the base weights (each W + sBA summed in float32, rounded once to "
                       "--dtype), the tokenizer, a model card (README.md: how to prompt it, with the system prompt "
                       "it was trained with) and rlaif.json (run, epoch, update variant, fingerprint, eval figures). "
                       "AutoModelForCausalLM.from_pretrained(OUT) and `vllm serve OUT` load it; "
                       "`hf upload USER/NAME OUT` puts it on the Hub. --adapter writes the PEFT "
                       "adapter alone instead. N=0 is the supervised warm-start's adapter.")
    p.add_argument("n", type=_count, help="epoch number (0: the supervised warm-start)")
    p.add_argument("out", help="directory to write: new or empty (--force replaces an earlier export there)")
    p.add_argument("--variant", metavar="VARIANT", help="one of epoch N's update variants (update-1a2b3c4d or a "
                   "prefix; `rlaif compare N` lists them) instead of its chosen policy")
    p.add_argument("--adapter", action="store_true", help="write the PEFT LoRA adapter alone (megabytes), not merged "
                   "weights; load it over the same base model")
    p.add_argument("--dtype", choices=["auto", "float32", "bfloat16", "float16"], default="auto",
                   help="the merged weights' dtype (default auto: the base model's checkpoint's own)")
    p.add_argument("--force", action="store_true", help="replace OUT when it holds an earlier export (its rlaif.json), "
                   "keeping what the export did not write (a clone's .git, your notes); a directory of other files is "
                   "never replaced")
    with_overrides(p)
    p.set_defaults(fn=cmd_export)
    p = with_overrides(sub.add_parser("judge", help="score one answer with the configured judge and print the JSON",
                                      description="Score one answer to one problem with the configured judge "
                                      "(judge.kind: execution, the Python or the OCaml harness by the problem's "
                                      "language; an anthropic, openai or hf model; your reward function (python); judge.mix's weighted components; "
                                      "length) and print the score, its breakdown and whether it came from the judge "
                                      "cache. The judgement is keyed and cached as the judge stage's, so a paid one is "
                                      "paid once and counts in the run's spend (judge.budget_usd); judge.mode=replay "
                                      "reads the cache only; one answer goes out live even with judge.batch. An LLM judge is shown the problem's "
                                      "reference answer when teacher.kind=reference and judge.show_teacher, as the "
                                      "judge stage shows it a student's. The problem is looked up in data.source, "
                                      "data.rl_sources, data.warm_start_sources and eval.sources (read with "
                                      "data.mapping and data.language, as a run reads them), then in the shipped "
                                      "sets: builtin, ocaml, bank, humaneval."))
    p.add_argument("--problem", required=True, help="problem id (e.g. py-easy-001, py-basics-001, HumanEval/0)")
    p.add_argument("--completion", required=True, help="file holding the answer ('-' = stdin)")
    p.add_argument("--truncated", action="store_true", help="treat the answer as cut off by max_new_tokens")
    p.set_defaults(fn=cmd_judge)
    p = with_overrides(sub.add_parser("status", help="epochs, stages, chosen variants, money spent",
                                      description="The run's epochs and stages (done; done(older code): made before a "
                                      "harness, the rubric or a reward function changed, reused until --force; stale; "
                                      "new; -), each epoch's chosen update variant, and the money its API calls cost. "
                                      "Reads the run; runs nothing."))
    p.set_defaults(fn=cmd_status)
    p = with_overrides(sub.add_parser("report", help="write runs/<run>/report.md: metrics table, health flags, plots, samples",
                                      description="Write runs/<run>/report.md from the finished epochs: the metrics "
                                      "table, health flags with advice (docs/reading-the-report.md), plots and "
                                      "samples. Reads the run; runs nothing."))
    p.set_defaults(fn=cmd_report)
    p = with_overrides(sub.add_parser("samples", help="show epoch N's completions with score breakdown and reward",
                                      description="Epoch N's completions with their judge's score breakdown and "
                                      "reward: --worst K, --best K, or every completion of one --prompt (none of "
                                      "them: the worst and the best report.samples_shown, 3 each); --eval: the answers of epoch N's eval instead, by their score."), epoch=True)
    p.add_argument("--eval", action="store_true", help="the answers of the eval of epoch N's chosen policy (N=0: the base model's, `rlaif eval 0`), by their score; --prompt takes a problem id (SOURCE:ID or ID)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--worst", type=_positive, metavar="K", help="the K lowest-reward completions (the unscored first; one per prompt before any prompt's second)")
    g.add_argument("--best", type=_positive, metavar="K", help="the K highest-reward completions (one per prompt before any prompt's second)")
    g.add_argument("--prompt", metavar="ID", help="every completion of one prompt")
    p.set_defaults(fn=cmd_samples)
    p = with_overrides(sub.add_parser("metrics", help="every metric: meaning and which way is good",
                                      description="Every metric the run records: what it means and which way is good."))
    p.set_defaults(fn=cmd_metrics)
    p = sub.add_parser("config", help="config commands",
                       description="`rlaif config show`: the config in effect (--config and the overrides applied); "
                       "`rlaif config show --doc`: every key with its default and what it does.")
    p.add_argument("--config", default=argparse.SUPPRESS, help=CONFIG_HELP)   # `rlaif config --config F show` too
    csub = p.add_subparsers(dest="what", required=True, metavar="{show}")
    p = with_overrides(csub.add_parser("show", help="print the effective config",
                                       description="Print the config in effect, --config's file with the overrides "
                                       "applied, as YAML that loads as a config file; --doc lists every key with its "
                                       "default and what it does."))
    p.add_argument("--doc", action="store_true", help="list every key with its default and doc")
    p.set_defaults(fn=cmd_config)
    p = sub.add_parser("cache", help="judge cache commands",
                       description="The judge cache (judge.cache_dir), where every judgement is kept: its size, an "
                       "export to a file, an import from one.")
    p.add_argument("--config", default=argparse.SUPPRESS, help=CONFIG_HELP)
    csub = p.add_subparsers(dest="what", required=True, metavar="{stats,export,import}")
    p = with_overrides(csub.add_parser("stats", help="entries and size of the judge cache",
                                       description="The judge cache's directory, entries and size in bytes, as JSON."))
    p.set_defaults(fn=cmd_cache)
    for what, text in (("export", "write every judgement to FILE (.jsonl or .parquet)"),
                       ("import", "merge FILE into the cache without overwriting")):
        p = csub.add_parser(what, help=text, description=text[0].upper() + text[1:] + ".")
        p.add_argument("file", help="a .jsonl or .parquet file" + (": a new one (--force replaces one)"
                                                                    if what == "export" else ""))
        if what == "export":
            p.add_argument("--force", action="store_true", help="replace FILE if it exists (written whole beside "
                           "it, then moved over it)")
        with_overrides(p)
        p.set_defaults(fn=cmd_cache)
    return ap


CONFIG_HELP = ("YAML config file (default: ./config.yaml when it exists, else the built-in defaults, which differ "
               "from the shipped config.yaml in data.prompts_per_epoch (8), data.difficulties (all three) "
               "and update.warm_start (false); `rlaif config show` prints the values in effect)")


def _quiet_libraries() -> None:
    """Library warnings users cannot act on; progress bars are silenced when a stage runs
    (pipeline.run.runner.quiet_libraries), so a rerun that reuses everything imports no torch."""
    import warnings
    warnings.filterwarnings("ignore", category=FutureWarning)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if getattr(warnings.formatwarning, "rlaif", False):   # once per process (main() runs again in-process)
        return
    library = warnings.formatwarning

    def ours(message, category, filename, lineno, line=None):   # our own warnings: one line, as our errors
        if category is UserWarning and f"{os.sep}pipeline{os.sep}" in filename:
            return f"warning: {message}\n"
        return library(message, category, filename, lineno, line)
    ours.rlaif = True
    warnings.formatwarning = ours


def main(argv: list[str] | None = None) -> int:
    """The `rlaif` command. A rank launched with --processes (or accelerate launch) leaves its
    process group and ends the process itself, with the command's exit code: what the interpreter's
    exit would then run (the gloo group's C++ destructors) only risks an abort after the work is
    done and written (pipeline.store.dist.close)."""
    code = 1
    try:
        code = _main(argv) or 0
    except BrokenPipeError:
        # the reader went away (`rlaif config show --doc | head`): no traceback; stdout goes to devnull so
        # the interpreter's flush at exit does not raise again (the recipe of Python's signal docs)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    except BaseException:
        if not dist.joined():
            raise
        import traceback
        traceback.print_exc()
    if dist.close(ok=code == 0):
        sys.stdout.flush()
        sys.stderr.flush()
        logging.shutdown()
        os._exit(code if isinstance(code, int) else 1)
    return code


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line as the command reads it: its key=value overrides gathered from wherever they stand
    (argparse stops filling a positional list at an option: `rlaif update 4 --config my.yaml update.lr=1e-4`)."""
    parser = build_parser()
    a, extra = parser.parse_known_args(argv)
    stray, cmd = [x for x in extra if "=" not in x or x.startswith("-")], subparser(parser, a.cmd)
    if twice := config_twice(argv if argv is not None else sys.argv[1:]):
        cmd.error(twice)
    if stray:   # said by the command's own parser: its usage, and the option a misspelt one is close to
        import difflib
        dashed = next((x for x in stray if x.startswith("--") and x[2:3].isalpha()), None)
        near = difflib.get_close_matches((dashed or "").split("=")[0], [o for x in cmd._actions for o in
                                                                        x.option_strings], n=1, cutoff=0.75)
        cmd.error(f"unrecognized arguments: {' '.join(stray)}" + (f" (did you mean {near[0]}?)" if near else (
            f" (config settings are key=value overrides without dashes, e.g. update.lr=1e-5, not {dashed})"
            if dashed else "")))
    a.overrides = list(getattr(a, "overrides", [])) + [x for x in extra if x not in stray]
    if getattr(a, "accelerate_config", None) and a.processes < 2 and dist.world_size() == 1:   # (not on a rank)
        cmd.error(f"--accelerate-config {a.accelerate_config} is read only when launching several processes: "
                  "add --processes N (N of 2 or more, one per GPU)")
    return a


def _main(argv: list[str] | None) -> int:
    from data.rows import DataError
    from judges.cache import CacheError
    from pipeline.config.errors import RunError
    from pipeline.engines.model import ModelError
    a = parse_args(argv)
    if getattr(a, "processes", 1) > 1 and dist.world_size() == 1:
        if why := launch_refusal(a):   # said once, before N processes start (each would say it, under torchrun's trace)
            print(f"error: {why}", file=sys.stderr)
            return 2
        return dist.launch(a.processes, a.accelerate_config, sys.argv[1:] if argv is None else argv)
    _quiet_libraries()
    overrides = a.overrides
    a.config = os.path.expanduser(a.config)  # --config=~/my.yaml: no shell expands a ~ after =
    if a.cmd == "replay":
        overrides.append("judge.mode=replay")
    sigterm = None
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        sigterm = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        # what lists the defaults reads no config file: it is what a broken one is fixed with
        cfg = Config() if a.cmd == "metrics" or getattr(a, "doc", False) else load_config(a.config, overrides)
        setup_logging(cfg.run.log_level, _rank0_speaks if os.environ.get("RANK", "0") != "0" else None)
        if dist.world_size() > 1:
            from pipeline.engines.model import resolve_device
            dist.init(resolve_device(cfg.run.device), cfg.run.dist_timeout_s)
        return a.fn(cfg, a)
    except (ConfigError, RunError, ModelError, DataError, CacheError, ArtifactError, dist.RankFailed) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        # a path that cannot be made, read or written (an export directory below a file, a full disk, no
        # permission): one line naming it; run.log_level=DEBUG keeps the traceback
        if e.filename is None or "run.log_level=DEBUG" in overrides:
            raise
        print(f"error: {path_error(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        term = isinstance(e, _Terminated)
        if os.environ.get("RANK", "0") == "0":   # (every rank gets the signal: rank 0 speaks for all)
            print(f"{'terminated (SIGTERM)' if term else 'interrupted'}: finished stages are kept; rerun the same "
                  "command to resume", file=sys.stderr)
        return 143 if term else 130
    finally:
        if sigterm is not None:
            signal.signal(signal.SIGTERM, sigterm)


class _Terminated(KeyboardInterrupt):
    """SIGTERM (a scheduler's stop, `kill`), raised as Ctrl-C is: the stage under way cleans up its temp dir."""


def _on_sigterm(signum, frame):
    raise _Terminated()


if __name__ == "__main__":
    sys.exit(main())
