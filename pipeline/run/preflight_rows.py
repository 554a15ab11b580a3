"""Row checks before any work that warn (a run may go on): the rows' own system turns against
student.system_prompt, and prompts that never name the entry_point their tests call."""
from __future__ import annotations

import logging
import re

from pipeline.config.schema import Config

log = logging.getLogger("rlaif")


def check_system_turns(cfg: Config, problems: list) -> None:
    """Conversational rows' own system turns (data/rows.py keeps them in meta.system_turn): every prompt
    takes student.system_prompt instead, which is said where they differ."""
    problems = list({p.id: p for p in problems}.values())   # (RL's and the warm-start's share data.source's)
    turns = {p.id: p.meta["system_turn"] for p in problems if "system_turn" in p.meta}
    other = {i: t for i, t in turns.items() if t != cfg.student.system_prompt}
    default = type(cfg.student).model_fields["system_prompt"].default
    if not turns and cfg.student.system_prompt == default and problems and not any(p.tests or p.test_code
                                                                                    for p in problems):
        log.info("none of the %d training problems has tests, and every prompt opens with the default system turn, a "
                 "Python programmer's (%r); where your task is not Python code, set it empty, \"student.system_prompt=''\" "
                 "on a command line (your prompts as they are, as TRL applies them), or to a prompt of your own", len(problems), default)
    if other:
        first = next(iter(other.values()))
        log.warning(
            "%d of %d training problems came with a system turn of their own (first, %s: %r) that is not "
            "student.system_prompt (%r): every prompt takes student.system_prompt as its system turn; %s",
            len(other), len(problems), next(iter(other)), first[:80], cfg.student.system_prompt[:80],
            f"set 'student.system_prompt={first}' to train on theirs" if len(set(turns.values())) == 1
            else "their system turns differ, and one system prompt serves every row")


def check_entry_points(problems: list) -> None:
    """A problem with tests whose prompt never names its entry_point (renamed in the data, not in the prompt):
    an answer defining what the prompt asks fails every test (entry point not defined), said before any work."""
    odd = list({p.id: p for p in problems if (p.tests or p.test_code) and p.entry_point
                and not re.search(rf"(?<!\w){re.escape(p.entry_point)}(?!\w)", p.prompt)}.values())
    if odd:
        log.warning(
            "%d problem(s) with tests never name their entry_point in the prompt (%s%s): the tests call that "
            "function, so an answer defining the one the prompt asks for fails every test; name it in the prompt, "
            "or set entry_point to the function the prompt names", len(odd),
            ", ".join(f"{p.id}: {p.entry_point!r}" for p in odd[:3]), ", ..." if len(odd) > 3 else "")
