"""The generated pages of the docs site: every config key (pipeline/config/schema.py through
`config_file.describe`), every metric (`metrics_doc.METRICS`) and every command's `--help`
(`cli.build_parser`).

    python -m pipeline.cli.docs_gen      # writes docs/reference/{config,metrics,commands}.md
    make docs                        # the same, then mkdocs build --strict into site/

tests/test_docs.py checks that the files on disk are what `pages()` returns, so the reference
cannot drift from the code. Not here: the hand-written pages, and the site build (mkdocs.yml).
"""
from __future__ import annotations

import argparse
import functools
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HELP_WIDTH = 100  # argparse wraps to the terminal's width otherwise: the page would depend on it
_TICKS = re.compile(r"`+")


def _cell(text: str) -> str:
    """Text for a Markdown table cell: outside code spans, `|` would end the cell and `<run.dir>`
    would pass as an HTML tag; code spans (a run of N backticks up to the next run of N) stay."""
    out, i = [], 0
    while (m := _TICKS.search(text, i)) is not None:
        out.append(_escape(text[i:m.start()]))
        close = re.compile(rf"(?<!`){m.group()}(?!`)").search(text, m.end())
        if close is None:  # an unmatched run is literal backticks
            out.append(m.group())
            i = m.end()
        else:
            out.append(text[m.start():close.end()])
            i = close.end()
    out.append(_escape(text[i:]))
    return "".join(out)


def _escape(text: str) -> str:
    return text.replace("<", "&lt;").replace("|", "\\|")


def config_page() -> str:
    from pipeline.config.file import describe
    rows = [f"| `{key}` | `{default}` | {_cell(doc)} |" for key, default, doc in describe()]
    return "\n".join([
        "# Config reference",
        "",
        "Every key, its default and what it does: the same as `rlaif config show --doc`. Set a key in",
        "the YAML file given with `--config FILE` (default `config.yaml`) or on the command line as",
        "`key.sub=value` (values are YAML). An unknown key or an invalid value fails before any work,",
        "naming the key. Keys whose doc says \"Runtime only\" change how fast or where a stage runs,",
        "never what it computes: they are in no fingerprint, so changing them recomputes nothing.",
        "",
        "Generated from `pipeline/config/schema.py` by `python -m pipeline.cli.docs_gen`: do not edit by hand.",
        "",
        "| key | default | meaning |",
        "|---|---|---|",
        *rows,
        "",
    ])


def metrics_page() -> str:
    from pipeline.metrics.doc import METRICS
    rows = [f"| `{key}` | {m.good or '-'} | {m.stage} | {_cell(m.meaning)} |" for key, m in METRICS.items()]
    return "\n".join([
        "# Metrics reference",
        "",
        "Every metric an epoch records in `runs/<run>/epoch-NNN/metrics.json`, the stage that records",
        "it, what it means and which way is good: the same as `rlaif metrics`. How to read them:",
        "[Reading the report](../reading-the-report.md).",
        "",
        "Generated from `pipeline/metrics/doc.py` by `python -m pipeline.cli.docs_gen`: do not edit by hand.",
        "",
        "| metric | good | stage | meaning |",
        "|---|---|---|---|",
        *rows,
        "",
    ])


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    """(name, parser) of every command below `parser`, depth first, in the order they were added."""
    out = []
    for action in parser._actions:  # argparse keeps subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out.append((name, sub))
                out += [(f"{name} {n}", p) for n, p in _subcommands(sub)]
    return out


def _help(parser: argparse.ArgumentParser) -> str:
    parser.formatter_class = functools.partial(argparse.HelpFormatter, width=HELP_WIDTH)
    return parser.format_help().rstrip()


def commands_page() -> str:
    from pipeline.cli.main import build_parser
    top = build_parser()
    lines = [
        "# Commands reference",
        "",
        "Every `rlaif` command and its `--help`. Every command takes `--config FILE` (before or after",
        "the command) and `key.sub=value` overrides; the [Config reference](config.md) lists every key.",
        "The make targets wrap these: [What an epoch does](../concepts.md#commands).",
        "",
        "Generated from `pipeline/cli/main.py` by `python -m pipeline.cli.docs_gen`: do not edit by hand.",
        "",
        "## rlaif",
        "",
        "```text",
        _help(top),
        "```",
    ]
    for name, parser in _subcommands(top):
        lines += ["", f"## rlaif {name}", "", "```text", _help(parser), "```"]
    return "\n".join(lines) + "\n"


def from_trl_page() -> str:
    """docs/guides/from-trl.md, hand-written but for its table of TRL's names (pipeline/config/trl_names.py),
    between the `trl-table` markers."""
    from pipeline.config.trl_names import table
    text = (ROOT / "docs/guides/from-trl.md").read_text()
    head, rest = text.split("<!-- trl-table -->\n", 1)
    return head + "<!-- trl-table -->\n" + table() + "\n<!-- /trl-table -->" + rest.split("<!-- /trl-table -->", 1)[1]


def pages() -> dict[str, str]:
    """{path relative to the repository root: text} of every generated page (and of the generated part
    of docs/guides/from-trl.md)."""
    return {
        "docs/reference/config.md": config_page(),
        "docs/reference/metrics.md": metrics_page(),
        "docs/reference/commands.md": commands_page(),
        "docs/guides/from-trl.md": from_trl_page(),
    }


def write(root: Path = ROOT) -> list[Path]:
    """Write the generated pages under `root`; returns those whose text changed."""
    changed = []
    for rel, text in pages().items():
        path = root / rel
        if not path.is_file() or path.read_text() != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            changed.append(path)
    return changed


if __name__ == "__main__":
    for p in write():
        print(f"wrote {p.relative_to(ROOT)}", file=sys.stderr)
