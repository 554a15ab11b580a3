"""The config as text: config.yaml and `key.sub=value` overrides read into one validated Config
(pipeline/config/schema.py), with errors that name the file and the key; and every key's doc written out
(`rlaif config show --doc`, docs/reference/config.md: `python -m pipeline.cli.docs_gen`)."""
from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from pipeline.config import trl_names
from pipeline.config.schema import Config
from pipeline.config.base import ConfigError


class _UniqueKeys(yaml.SafeLoader):
    """yaml.safe_load's loader, refusing a key given twice in one mapping (YAML keeps the last silently:
    a second `run:` section would drop the first's keys)."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":   # `<<: *anchor`: its keys may be overridden here
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(None, None, f"key {key!r} is not a name",
                                                        key_node.start_mark) from None
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"key {key!r} is given twice (the second "
                                                        "would silently replace the first)", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _set_path(d: dict, path: str, value: Any) -> None:
    parts = path.split(".")
    for p in parts[:-1]:
        if not isinstance(d.get(p), dict):
            d[p] = {}
        d = d[p]
    d[parts[-1]] = value


class _Replace(dict):
    """An override's `{...}` value: it replaces the dict it is set on (judge.mix={execution: 1} drops the
    file's other components); a dotted key (judge.mix.execution=1) sets one entry."""


def parse_overrides(items: list[str]) -> dict:
    out: dict = {}
    for item in items:
        if "=" not in item:
            raise ConfigError(f"override {item!r} is not key.sub=value (e.g. update.lr=5e-6)"
                              + ("; a config file goes after --config" if item.endswith((".yaml", ".yml")) else ""))
        key, raw = item.split("=", 1)
        if not key.strip():
            raise ConfigError(f"override {item!r} has no key before '=': write key.sub=value (e.g. update.lr=5e-6)")
        try:
            value = yaml.safe_load(raw) if raw != "" else ""
        except yaml.YAMLError:
            opened = raw.lstrip()[:1]
            if opened in ("[", "{") and raw.count(opened) > raw.count("]" if opened == "[" else "}"):
                close = "]" if opened == "[" else "}"
                raise ConfigError(f"override {item!r}: the {'list' if opened == '[' else 'mapping'} opened with "
                                  f"{opened!r} is not closed; write {key.strip()}={raw.rstrip()}{close} (quote the "
                                  "whole argument in the shell)") from None
            value = raw
        glued = _glued_keys(value)
        if glued:
            fixed = raw
            for k in glued:
                fixed = fixed.replace(k, k.replace(":", ": ", 1), 1)
            raise ConfigError(f"override {item!r}: YAML reads {glued[0]!r} as one key with no value (a colon needs a "
                              f"space after it in {{...}}); write '{key.strip()}={fixed}'")
        _set_path(out, key.strip(), _Replace(value) if isinstance(value, dict) else value)
    return out


def _glued_keys(value: Any) -> list[str]:
    """The keys of a `{...}` value written without a space after the colon ({execution:1.0}: YAML's key
    'execution:1.0' with no value), at any depth."""
    if not isinstance(value, dict):
        return []
    out = [k for k, v in value.items() if isinstance(k, str) and ":" in k and v is None]
    return out + [k for v in value.values() for k in _glued_keys(v)]


def _merge(base: dict, over: dict, model: Any = None) -> dict:
    """`over` onto `base`. A `{...}` override replaces a free-form dict (judge.mix, data.mapping,
    judge.prices); onto a section (judge.execution, update) it sets the keys it names, as dotted ones do."""
    out = dict(base)
    for k, v in over.items():
        field = (getattr(model, "model_fields", {}) or {}).get(k)
        sub = field.annotation if field is not None and isinstance(field.annotation, type) else None
        section = sub is not None and issubclass(sub, BaseModel)
        if isinstance(v, _Replace) and not section:
            out[k] = dict(v)
        else:
            out[k] = (_merge(out[k], v, sub if section else None)
                      if isinstance(v, dict) and isinstance(out.get(k), dict) else (dict(v) if isinstance(v, dict) else v))
    return out


def did_you_mean(key: str) -> str:
    """' (did you mean update.lr?)' for a misspelled key: the closest valid key, its section's or any."""
    import difflib
    keys = [k for k, _, _ in describe()]
    keys += sorted({k.split(".")[0] for k in keys} | {k.rsplit(".", 1)[0] for k in keys if k.count(".") > 1})
    close = difflib.get_close_matches(key, keys, n=1, cutoff=0.6)
    if not close and "." not in key:   # a key without its section (lr: update.lr), or misspelt too (lrr)
        ends = {k.rsplit(".", 1)[-1]: k for k in reversed(keys) if "." in k}
        close = [ends[c] for c in difflib.get_close_matches(key, list(ends), n=1, cutoff=0.8)]
    return f" (did you mean {close[0]}?)" if close else ""


def _format_error(err: ValidationError, source: str) -> str:
    lines = [f"invalid config ({source}):"]
    for e in _one_per_union(err.errors()):
        key = ".".join(str(p) for p in e["loc"]) or "(top level)"
        last = e["loc"][-1] if e["loc"] else ""
        glued = (f"; YAML reads {last!r} as a key with no value: write {{{last.replace(':', ': ', 1)}}} (a space "
                 "after the colon)" if isinstance(last, str) and ":" in last and e.get("input") is None else "")
        if e["type"] == "extra_forbidden":
            lines.append(f"  {key}: unknown key{glued or trl_names.hint(key) or did_you_mean(key)}; see `rlaif config "
                         "show --doc` for valid keys")
        elif not e["loc"]:  # a whole-config check: the message names the keys itself
            lines.append(f"  {e['msg'].removeprefix('Value error, ')}")
        else:
            got = e.get("input")
            quote = (f"; quote it to keep it text: {key}='{got}'" if e["type"] == "string_type" and (
                isinstance(got, (int, float, bool)) or type(got).__name__ in ("date", "datetime")) else
                f"; YAML reads 'a: b' as a mapping: quote it to keep it text, {key}='\"{_as_text(got)}\"'"
                if e["type"] == "string_type" and isinstance(got, dict) and len(got) == 1 else
                f"; YAML reads a bare ~ (or nothing) as null: give a value, quoted where it starts with ~ "
                f"({key}='~/...')" if e["type"] == "string_type" and got is None else "")
            if isinstance(got, dict) and e["type"] in ("int_type", "int_parsing", "float_type", "float_parsing",
                                                        "bool_type", "bool_parsing"):
                quote = f"; {key} takes one value, no keys under it: write {key}=<value>"
            listed = (f"; a list, even of one: {_one_listed(key, e.get('input'))}" if e["type"] == "list_type"
                      and isinstance(e.get("input"), (str, int, float))
                      and not trl_names.value_hint(key, e.get("input")) else "")
            lines.append(f"  {key}: {e['msg'].removeprefix('Value error, ')} (got {e.get('input')!r}){quote}{glued}"
                         f"{listed}{trl_names.value_hint(key, e.get('input'))}")
    return "\n".join(lines)


def _one_listed(key: str, got) -> str:
    """key=[value] as typed on a command line, quoted where YAML would not read it back as that one value
    (sample.stop=```: backticks are no plain YAML, so '["```"]')."""
    try:
        plain = yaml.safe_load(f"[{got}]") == [got]
    except yaml.YAMLError:
        plain = False
    return f"{key}=[{got}]" if plain else f"'{key}=[{json.dumps(got)}]'"


def _as_text(mapping: dict) -> str:
    """The text a one-entry mapping was written as, `Note: answer` for {'Note': 'answer'}."""
    (k, v), = mapping.items()
    return f"{k}: {_as_text(v) if isinstance(v, dict) and len(v) == 1 else v}"


def _one_per_union(errors: list[dict]) -> list[dict]:
    """pydantic's errors with those of one field of several types (data.validation_size: an int >= 0 or auto)
    made one: 'give a whole number >= 0 or auto', instead of one line per type under a tag of pydantic's."""
    out, seen = [], set()
    for e in errors:
        n, info = _field_at(e["loc"])
        members = [a for a in typing.get_args(info.annotation) if a is not type(None)] if info else []
        if not (n < len(e["loc"]) and len(members) > 1
                and typing.get_origin(info.annotation) in (typing.Union, types.UnionType)):
            out.append(e)
            continue
        loc = tuple(e["loc"][:n])
        deeper = [x for x in errors if tuple(x["loc"][:n]) == loc and len(x["loc"]) > n + 1]
        if deeper and loc not in seen:   # the right kind (a list), a wrong item in it: that item's error
            seen.add(loc)
            out += [{**x, "loc": loc + tuple(x["loc"][n + 1:])} for x in deeper]
        elif loc not in seen:
            seen.add(loc)
            whole = [x for x in errors if tuple(x["loc"][:n]) == loc and len(x["loc"]) == n + 1] or [e]
            kinds = " or ".join(_kind(a) for a in members) + (" or null" if type(None) in typing.get_args(
                info.annotation) else "")
            out.append({"type": "union", "loc": loc, "msg": f"give {kinds}", "input": whole[0].get("input")})
    return out


def _field_at(loc: tuple) -> tuple[int, Any]:
    """(how many parts of an error's loc name config keys, the field the last of them names)."""
    model, info = Config, None
    for i, part in enumerate(loc):
        fields = model.model_fields if isinstance(model, type) and issubclass(model, BaseModel) else {}
        if part not in fields:
            return i, info
        info = fields[part]
        model = info.annotation
    return len(loc), info


def _kind(annotation: Any) -> str:
    """A type as a user reads it: 'a whole number >= 0', 'auto', 'a list'."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:   # Annotated[int, Field(ge=0)]: the bounds are in the FieldInfo's metadata
        bounds = _bound_text([m for x in args[1:] for m in (getattr(x, "metadata", None) or [x])])
        return f"{_kind(args[0])} {bounds}".strip()
    if origin is typing.Literal:
        return " or ".join(str(a) for a in args)
    names = {bool: "true or false", int: "a whole number", float: "a number", str: "text", list: "a list",
             dict: "a mapping {key: value}"}
    return names.get(origin or annotation, getattr(annotation, "__name__", str(annotation)))


def load_config(path: str | Path | None = "config.yaml", overrides: list[str] | dict | None = None) -> Config:
    """Read YAML (missing default file = all defaults), apply overrides, validate."""
    data, source = read_config(path, overrides)
    try:
        return Config.model_validate(data)
    except ValidationError as e:
        raise ConfigError(_format_error(e, source)) from None


def read_config(path: str | Path | None = "config.yaml", overrides: list[str] | dict | None = None) -> tuple[dict, str]:
    """(the config as written: the YAML file with the overrides merged, not yet validated; where it came from)."""
    data: dict = {}
    source = "defaults"
    if path is not None:
        p = Path(path)
        if p.is_dir():
            raise ConfigError(f"config file {p} is a directory; give the YAML file in it (--config {p}/config.yaml)")
        if p.exists():
            try:
                data = yaml.load(p.read_text(), Loader=_UniqueKeys) or {}
            except UnicodeDecodeError as e:
                raise ConfigError(f"{p}: not UTF-8 text (byte {e.start}); save it as UTF-8") from None
            except yaml.YAMLError as e:
                where = str(e).replace('in "<unicode string>", ', "at ")   # (the file is named once, first)
                raise ConfigError(f"{p}: not valid YAML: {where}") from None
            if not isinstance(data, dict):
                raise ConfigError(f"{p}: top level must be a mapping of sections (run:, student:, ...)")
            # a section whose keys are all commented out is an empty section, not a null one
            data = {k: {} if v is None else v for k, v in data.items()}
            source = str(p)
        elif str(path) != "config.yaml":
            raise ConfigError(f"config file {p} does not exist")
    over = parse_overrides(overrides) if isinstance(overrides, list) else (overrides or {})
    if over:
        source += " + command-line overrides"
    return _merge(data, over, Config), source


def as_written(cfg: Config, written: dict) -> tuple[dict, dict]:
    """(cfg as a config file holds it, {key: value in effect} of the keys it holds otherwise).

    A whole-config check fills some keys in from others (data.validation_size auto and eval.sources
    unset follow data.source): those keep what `written` (read_config's) gives them, else their
    default, so the file read with another data.source fills them in afresh, as the first one did."""
    dump, resolved = cfg.model_dump(), {}

    def walk(model: type[BaseModel], out: dict, given: dict, prefix: str) -> None:
        for name, f in model.model_fields.items():
            value = given.get(name, ...) if isinstance(given, dict) else ...
            if isinstance(f.annotation, type) and issubclass(f.annotation, BaseModel):
                walk(f.annotation, out[name], value if isinstance(value, dict) else {}, f"{prefix}{name}.")
                continue
            value = f.get_default(call_default_factory=True) if value is ... else value
            if (value is None or value == "auto") and out[name] != value:
                resolved[prefix + name], out[name] = out[name], value

    walk(Config, dump, written, "")
    return dump, resolved


def describe(model: type[BaseModel] = Config, prefix: str = "") -> list[tuple[str, str, str]]:
    """(key path, default, doc) for every leaf field, for docs and `config show --doc`."""
    rows = []
    inst = model()
    for name, f in model.model_fields.items():
        ann = f.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            rows += describe(ann, f"{prefix}{name}.")
        else:
            doc = f.description or ""
            bounds, choices = _bounds(f), _choices(ann)
            doc = f"{doc} Range: {bounds}." if bounds else doc
            if choices:
                each = "Each one of" if typing.get_origin(ann) is list else "One of"
                doc += f" {each}: {', '.join(f'`{c}`' for c in choices)}."
            rows.append((f"{prefix}{name}", repr(getattr(inst, name)), doc))
    return rows


def _choices(ann) -> list | None:
    """The values a field takes when its type is a Literal (or a list of one, or one or None): the
    reference lists them; None where any other value is allowed too (a number, a path)."""
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is typing.Literal:
        return list(args)
    if origin is list and len(args) == 1:
        return _choices(args[0])
    if origin in (typing.Union, types.UnionType):
        parts = [_choices(a) for a in args if a is not type(None)]
        if parts and all(x is not None for x in parts):
            return [c for x in parts for c in x]
    return None


def _bounds(f) -> str:
    """A field's numeric bounds as a user reads them ('>= 1', '> 0 and <= 1'), '' when it has none."""
    return _bound_text(f.metadata)


def _bound_text(metadata: list) -> str:
    import annotated_types as at
    signs = {at.Ge: (">=", "ge"), at.Gt: (">", "gt"), at.Le: ("<=", "le"), at.Lt: ("<", "lt")}
    parts = [f"{sign} {getattr(m, attr)}" for m in metadata for kind, (sign, attr) in signs.items()
             if isinstance(m, kind)]
    return " and ".join(parts)


def markdown_table() -> str:
    """The config reference, docs/reference/config.md (`python -m pipeline.config.file` prints it)."""
    rows = ["| key | default | meaning |", "|---|---|---|"]
    rows += [f"| `{k}` | `{d}` | {doc} |" for k, d, doc in describe()]
    return "\n".join(rows)


if __name__ == "__main__":
    print(markdown_table())
