"""bench/learning.py's command line: its options, and every check made of them before any work (unknown
sets, a lever that is no lever, a config the bench's own evals would refuse after hours of training)."""
from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Callable

from pipeline.config.base import ConfigError
from pipeline.config.file import load_config

DEFAULT_ROOT = Path("runs/bench-learning")   # where the bench's runs go unless --root says otherwise
ABLATION = ("rl-only", "plain")  # --ablation's arms: RL without the warm-start, the plain reward without the teacher
SAMPLES, TEMPERATURE = 8, 0.6  # the final evals' answers per problem and their temperature
# validation: the data.validation_size problems carved out of the training set; tune: the problem
# bank's tuning split (bank:tune), written at the embedded student's level like bank:heldout and
# split from it by task, which no split-named source trains on (--tune N: a fixed draw of N). Tune on
# either; the held-out sets and HumanEval are reported, never tuned on
SETS = {"heldout": "builtin:heldout", "bank": "bank:heldout", "humaneval": "humaneval", "validation": "validation",
        "tune": "bank:tune", "ocaml": "ocaml:heldout"}


def parse(description: str, argv: list[str] | None = None,
          check: Callable[[argparse.Namespace], str | None] | None = None) -> argparse.Namespace:
    """The bench's arguments, checked; check(a) returns what else refuses them (None: nothing), said
    as argparse says an error (exit 2), before any work."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--seeds", type=int, default=3, help="training seeds (run.seed 1..S; run.seed 0's eval streams are the calibration draw's)")
    ap.add_argument("--epochs", type=int, default=4, help="RL epochs of each run (default 4)")
    ap.add_argument("--samples", type=int, default=SAMPLES, help="sampled answers per problem in the final evals")
    ap.add_argument("--temperature", type=float, default=TEMPERATURE, help="their temperature (DeepSeek-R1's pass@1 protocol)")
    ap.add_argument("--humaneval", type=int, default=0, help="HumanEval problems evaluated (0 = all 164; a fixed subset)")
    ap.add_argument("--sets", default="heldout,bank,humaneval",
                    help="comma-separated: heldout (builtin:heldout, 29 problems), bank (bank:heldout, 159), humaneval, "
                         "validation (needs data.validation_size > 0 among the overrides or in --config: the set to "
                         "tune on), tune (bank:tune, the problem bank's tuning split: a larger set to tune the recipe on, at the student's level), ocaml (ocaml:heldout, 16 problems, with --config configs/ocaml.yaml; also reports "
                         "the shares of well-formed and type-checking answers)")
    ap.add_argument("--base-draws", type=int, default=None, help="the base model's sampled evals, each with its "
                                                                     "own streams (run.seed 101..100+D), averaged; their "
                                                                     "spread measures the draw-level variance (2 or "
                                                                     "more); default 5 (--quick: 1)")
    ap.add_argument("--tune", type=int, default=0, help="--sets tune: how many problems of bank:tune (a fixed draw; 0 = all)")
    ap.add_argument("--no-controls", action="store_true", help="skip the negative and positive controls")
    ap.add_argument("--ablation", nargs="?", const=",".join(ABLATION), default="", metavar="ARMS",
                    help="also train RL without the warm-start (rl-only) and the default with the plain execution "
                         "reward and no teacher rows in RL (plain: TRL's GRPOTrainer's), each over the same seeds: "
                         "the recipe's parts (the warm-start alone is in every bench); ARMS, comma-separated, "
                         "trains some of them (default both)")
    ap.add_argument("--lever", nargs="+", action="append", default=[], metavar=("NAME", "KEY=VALUE"),
                    help="a candidate change to the default: NAME, then its overrides (key.sub=value ...); trained over "
                         "the same seeds (runs NAME-seed<s>) and reported against the default, paired by seed. "
                         "Repeatable; put the bench's own overrides before it. Tune with --sets tune or validation, "
                         "never on the held-out sets")
    ap.add_argument("--quick", action="store_true", help="1 seed, no controls, 40 HumanEval problems")
    ap.add_argument("--fresh", action="store_true", help="delete the bench's runs first")
    ap.add_argument("--root", default=str(DEFAULT_ROOT), help="where the bench's runs go (default runs/bench-learning)")
    ap.add_argument("--config", default="config.yaml", help="the config every run starts from")
    ap.add_argument("--no-record", action="store_true", help="print the tables; do not append to bench/RESULTS.md")
    ap.add_argument("--tables-from", metavar="FILE", help="print the tables of a finished bench from its saved "
                                                          "per-problem evals (bench/learning_evals/*.json.gz, "
                                                          "written by every bench) as the code reads them now; "
                                                          "trains and evaluates nothing")
    ap.add_argument("--evals-from", metavar="FILE", action="append", default=[],
                    help="a saved bench's per-problem evals (bench/learning_evals/*.json.gz, same --epochs, --samples, "
                         "--temperature, --humaneval, overrides and config, and every set of --sets): its runs and "
                         "base draws are neither trained nor evaluated again, only the rest (an --ablation arm, a "
                         "--lever); an --ablation arm it holds is tabled too. Repeatable: the first file's base draws "
                         "and warm-starts, every file's runs. The tables pair them all, and the evals saved hold "
                         "them all")
    ap.add_argument("overrides", nargs="*", metavar="key.sub=value")
    a = ap.parse_args(argv)
    a.sets = [s for s in a.sets.split(",") if s]
    a.ablation = [x for x in a.ablation.split(",") if x]
    if set(a.ablation) - set(ABLATION):
        ap.error(f"--ablation: unknown {', '.join(sorted(set(a.ablation) - set(ABLATION)))}; choose among "
                 f"{', '.join(ABLATION)} (--ablation alone: both)")
    if set(a.sets) - set(SETS):
        ap.error(f"--sets: unknown {', '.join(sorted(set(a.sets) - set(SETS)))}; choose among {', '.join(SETS)}")
    if a.quick:  # the heldout set whole, HumanEval a fixed subset of 40 unless --humaneval says otherwise
        a.seeds, a.no_controls, a.humaneval = 1, True, a.humaneval or 40
    if a.base_draws is None:
        a.base_draws = 1 if a.quick else 5
    if a.base_draws < 1:
        ap.error("--base-draws: 1 or more")
    if a.seeds < 1:
        ap.error(f"--seeds {a.seeds}: 1 or more (training seeds: run.seed 1..S)")
    if seeded := [o for o in [*a.overrides, *(x for _, *lv in a.lever for x in lv)] if o.startswith("run.seed=")]:
        ap.error(f"{seeded[0]}: the bench sets run.seed itself, one per trained seed and base draw; drop it")
    taken = {"seed", "rl-only", "plain", "base", "base-draw", "negative-control", "positive-control"}
    for name, *lever in a.lever:
        if not re.fullmatch(r"[A-Za-z0-9_.]+", name) or name in taken:
            ap.error(f"--lever {name}: a name first (letters, digits, _ or .; not {', '.join(sorted(taken))}), "
                     "then its overrides, e.g. --lever t1 sample.temperature=1.0")
        if not lever or any("=" not in o for o in lever):
            ap.error(f"--lever {name}: each override is key.sub=value (got {' '.join(lever) or 'none'})")
        try:
            arm = load_config(a.config, [f"update.planned_epochs={a.epochs}", *a.overrides, *lever])
        except ConfigError as e:
            ap.error(f"--lever {name}: {e}")
        # a lever that sets what the default already has would train the default again: minutes for a 0
        if arm.model_dump() == load_config(a.config, [f"update.planned_epochs={a.epochs}", *a.overrides]).model_dump():
            ap.error(f"--lever {name}: {' '.join(lever)} is what the default already has (`rlaif config show` "
                     "lists every value): it would train the default again")
        taken.add(name)
    if check and (said := check(a)):
        ap.error(said)
    return a


def ablation_arms(a) -> tuple[str, ...]:
    """The --ablation arms a bench trains, in ABLATION's order: a.ablation as parsed (a list), or as a
    saved bench of before the arms could be chosen holds it (True: both; False: none)."""
    if isinstance(a.ablation, bool):
        return ABLATION if a.ablation else ()
    return tuple(k for k in ABLATION if k in (a.ablation or ()))
