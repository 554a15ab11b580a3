"""OCaml types of test signatures, JSON values as OCaml literals, and JSON printers in OCaml.

The OCaml judge compiles a harness that calls the entry point on each test's inputs and prints
each result as one JSON value; the comparison then happens in the judge (judges/ocaml.py). The
harness is generated from the problem's signature (`val name : t1 -> t2 -> r`), so it needs:

    parse_signature("val f : int list -> (string * int) option")  -> name, [arg types], result
    literal(t, value)   a JSON test input as an OCaml expression of type t
    printer(t)          an OCaml function t -> string writing a JSON value

Supported: int, float, bool, string, char, unit, t list, t array, t option, tuples. JSON
shapes: lists, arrays and tuples are JSON arrays, None is null and Some x is x (so no
`t option option`), a char is a one-character string, unit is null, a float prints with a
decimal point (3.0 stays a float after the JSON round trip; nan/inf as NaN/Infinity).
Records, variants, labelled arguments and type variables are refused with a message.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

BASE = ("int", "float", "bool", "string", "char", "unit")
CONSTRUCTORS = ("list", "array", "option")


class TypeSpecError(ValueError):
    """A signature the harness cannot drive; the message says what is supported."""


@dataclass(frozen=True)
class T:
    kind: str
    """int | float | bool | string | char | unit | list | array | option | tuple."""
    args: tuple["T", ...] = ()

    def __str__(self) -> str:
        if self.kind == "tuple":
            return "(" + " * ".join(map(str, self.args)) + ")"
        if self.args:
            return f"{self.args[0]} {self.kind}"
        return self.kind


_TOKEN = re.compile(r"\s*(->|\*|\(|\)|[A-Za-z_][\w'.]*|'\w+|~\w+:|\?\w+:|\S)")
SUPPORTED = ("int, float, bool, string, char, unit, and `list`, `array`, `option` and tuples of them "
             "(e.g. `val f : int list -> (string * int) option`)")


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            break
        out.append(m.group(1))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return out


def parse_type(text: str) -> list[T]:
    """The arrow-separated parts of a type: [arg1, ..., result]."""
    toks = _tokens(text)
    pos = 0

    def peek() -> str | None:
        return toks[pos] if pos < len(toks) else None

    def take() -> str:
        nonlocal pos
        if pos >= len(toks):
            raise TypeSpecError(f"type {text!r} ends too early; use {SUPPORTED}")
        pos += 1
        return toks[pos - 1]

    def arrow() -> list[T]:
        parts = [tuple_()]
        while peek() == "->":
            take()
            parts.append(tuple_())
        return parts

    def tuple_() -> T:
        items = [app()]
        while peek() == "*":
            take()
            items.append(app())
        return items[0] if len(items) == 1 else T("tuple", tuple(items))

    def app() -> T:
        t = atom()
        while peek() in CONSTRUCTORS:
            t = T(take(), (t,))
        return t

    def atom() -> T:
        tok = take()
        if tok == "(":
            inner = arrow()
            if len(inner) != 1:
                raise TypeSpecError(f"type {text!r}: function-typed arguments or results are not supported; "
                                    f"use {SUPPORTED}")
            if (close := take()) != ")":   # `(int, string) Hashtbl.t`: a type of several parameters
                raise TypeSpecError(f"type {text!r}: {close!r} inside parentheses: a type of several parameters "
                                    f"has no JSON form here; use {SUPPORTED}")
            return inner[0]
        if tok in BASE:
            return T(tok)
        raise TypeSpecError(f"type {text!r}: {tok!r} is not supported by the test harness; use {SUPPORTED}")

    parts = arrow()
    if pos != len(toks):
        raise TypeSpecError(f"type {text!r}: unexpected {toks[pos]!r}; use {SUPPORTED}")
    for t in parts:
        _no_nested_option(t, text)
    return parts


def _no_nested_option(t: T, text: str) -> None:
    if t.kind == "option" and t.args[0].kind == "option":
        raise TypeSpecError(f"type {text!r}: `option option` has no JSON form here (None and Some None are "
                            f"both null); use another result type")
    for a in t.args:
        _no_nested_option(a, text)


_SIG = re.compile(r"^\s*val\s+([a-z_][\w']*)\s*:\s*(.+?)\s*$", re.S)


def parse_signature(sig: str) -> tuple[str, list[T], T]:
    """`val name : t1 -> ... -> r` -> (name, [t1, ...], r)."""
    m = _SIG.match(sig or "")
    if not m:
        raise TypeSpecError(f"signature {sig!r} is not `val <name> : <type>` (e.g. `val add : int -> int -> int`)")
    parts = parse_type(m.group(2))
    if len(parts) < 2:
        raise TypeSpecError(f"signature {sig!r} is not a function; write `val f : unit -> int` for a constant")
    return m.group(1), parts[:-1], parts[-1]


# --------------------------------------------------------------------------- JSON -> OCaml literal

def _string_literal(s: str) -> str:
    out = []
    for b in s.encode("utf-8"):
        ch = chr(b)
        out.append(ch if 32 <= b < 127 and ch not in '"\\' else f"\\x{b:02x}")
    return '"' + "".join(out) + '"'


def literal(t: T, v: Any) -> str:
    """The JSON test input `v` as an OCaml expression of type `t` (parenthesised)."""
    def bad(what: str) -> TypeSpecError:
        return TypeSpecError(f"test input {v!r:.80} is not {what} (type {t})")

    k = t.kind
    if k == "int":
        if isinstance(v, bool) or not isinstance(v, int):
            raise bad("an integer")
        if not -(1 << 62) <= v < 1 << 62:   # OCaml's int has 63 bits: a literal past them fails or wraps
            raise bad("an OCaml int (-2^62 to 2^62 - 1: OCaml's int has 63 bits; a float or a string holds more)")
        return f"({v})"
    if k == "float":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise bad("a number")
        v = float(v)
        if math.isnan(v):
            return "Stdlib.nan"
        if math.isinf(v):
            return "Stdlib.infinity" if v > 0 else "Stdlib.neg_infinity"
        return f"({v!r})"
    if k == "bool":
        if not isinstance(v, bool):
            raise bad("true or false")
        return "true" if v else "false"
    if k == "string":
        if not isinstance(v, str):
            raise bad("a string")
        return _string_literal(v)
    if k == "char":
        if not isinstance(v, str) or len(v.encode("utf-8")) != 1:
            raise bad("a one-byte string (a char)")
        return f"'\\x{ord(v):02x}'"
    if k == "unit":
        if v is not None:
            raise bad("null (unit)")
        return "()"
    if k == "option":
        return "None" if v is None else f"(Some {literal(t.args[0], v)})"
    if k in ("list", "array", "tuple"):
        if not isinstance(v, list):
            raise bad("a JSON array")
        if k == "tuple":
            if len(v) != len(t.args):
                raise bad(f"an array of {len(t.args)} items")
            return "(" + ", ".join(literal(a, x) for a, x in zip(t.args, v)) + ")"
        items = "; ".join(literal(t.args[0], x) for x in v)
        return f"[{items}]" if k == "list" else f"[|{items}|]"
    raise bad(k)


# --------------------------------------------------------------------------- OCaml printers

# Helpers the generated printers use; they refer to Stdlib explicitly (the solution module
# is never opened, so nothing it defines can shadow them).
PRELUDE = r'''
let json_string s =
  let b = Stdlib.Buffer.create (Stdlib.String.length s + 2) in
  Stdlib.Buffer.add_char b '"';
  Stdlib.String.iter (fun c -> match c with
    | '"' -> Stdlib.Buffer.add_string b "\\\""
    | '\\' -> Stdlib.Buffer.add_string b "\\\\"
    | c when Stdlib.Char.code c < 32 || Stdlib.Char.code c = 127 ->
        Stdlib.Buffer.add_string b (Stdlib.Printf.sprintf "\\u%04x" (Stdlib.Char.code c))
    | c -> Stdlib.Buffer.add_char b c) s;
  Stdlib.Buffer.add_char b '"';
  Stdlib.Buffer.contents b
let json_float f =
  if Stdlib.Float.is_nan f then "NaN"
  else if f = Stdlib.infinity then "Infinity"
  else if f = Stdlib.neg_infinity then "-Infinity"
  else
    let s = Stdlib.Printf.sprintf "%.17g" f in
    if Stdlib.String.contains s '.' || Stdlib.String.contains s 'e' then s else s ^ ".0"
let json_list f xs = "[" ^ Stdlib.String.concat ", " (Stdlib.List.map f xs) ^ "]"
'''


def printer(t: T) -> str:
    """An OCaml expression of type `t -> string` that writes a value of `t` as JSON."""
    k = t.kind
    if k == "int":
        return "Stdlib.string_of_int"
    if k == "float":
        return "json_float"
    if k == "bool":
        return "Stdlib.string_of_bool"
    if k == "string":
        return "json_string"
    if k == "char":
        return "(fun c -> json_string (Stdlib.String.make 1 c))"
    if k == "unit":
        return '(fun () -> "null")'
    if k == "option":
        return f'(function None -> "null" | Some x -> {printer(t.args[0])} x)'
    if k == "list":
        return f"(json_list {printer(t.args[0])})"
    if k == "array":
        return f"(fun a -> json_list {printer(t.args[0])} (Stdlib.Array.to_list a))"
    if k == "tuple":
        names = [f"x{i}" for i in range(len(t.args))]
        parts = " ^ \", \" ^ ".join(f"{printer(a)} {n}" for a, n in zip(t.args, names))
        return f'(fun ({", ".join(names)}) -> "[" ^ {parts} ^ "]")'
    raise TypeSpecError(f"no printer for {t}")


def as_result(t: T, v: Any) -> Any:
    """An expected value as the harness prints a result of type `t`: an integer where `t` holds a float
    becomes one (the judge compares by JSON type, and a float result prints as 4.0, never 4)."""
    k = t.kind
    if k == "float" and isinstance(v, int) and not isinstance(v, bool):
        return float(v)
    if k in ("list", "array") and isinstance(v, list):
        return [as_result(t.args[0], x) for x in v]
    if k == "tuple" and isinstance(v, list) and len(v) == len(t.args):
        return [as_result(a, x) for a, x in zip(t.args, v)]
    if k == "option" and v is not None:
        return as_result(t.args[0], v)
    return v


def check_tests(signature: str | None, entry_point: str, tests: list[dict]) -> None:
    """TypeSpecError unless the harness can call `entry_point` with every test's inputs."""
    name, args, result = parse_signature(signature or "")
    if name != entry_point:
        raise TypeSpecError(f"signature {signature!r} names {name!r}, but entry_point is {entry_point!r}")
    for i, test in enumerate(tests):
        if len(test["input"]) != len(args):
            raise TypeSpecError(f"test {i} has {len(test['input'])} inputs for the {len(args)} arguments "
                                f"of `{signature}`")
        for t, v in zip(args, test["input"]):
            literal(t, v)
        if "output" in test:
            try:   # an expected value the result type cannot hold fails forever
                literal(result, test["output"])
            except TypeSpecError as e:
                raise TypeSpecError(f"test {i}'s expected output: " + str(e).replace("test input ", "", 1)) from None
