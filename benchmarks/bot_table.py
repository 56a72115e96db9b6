"""How the example bots fare: a markdown table for docs/bots.md (and the README).

    python benchmarks/bot_table.py [--seeds 100] [--bots examples/bots] > table.md

Competitive: every pair of different bots plays 2-player games, 4 bits, everyone novice,
on seeds 1..N, in both seat orders (2N games a pair). Cooperative: each bot alone at the
novice, medium and hacker levels, on seeds 1..N. Games are played through the engine's Python
API (`moonasm.game.engine.Game`), exactly as `moonasm play --seed S` plays them, so any row can
be replayed: `moonasm play examples/bots/X.masm ... --seed S --log game.jsonl`.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from moonasm.game.bots import Bot, load_bot  # noqa: E402
from moonasm.game.engine import Game, GameOptions  # noqa: E402

LEVELS = ("novice", "medium", "hacker")


def load(directory: Path) -> list[Bot]:
    bots = []
    for path in sorted(directory.glob("*.masm")):
        loaded = load_bot(str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path),
                          path.read_bytes(), 4)
        if not isinstance(loaded, Bot):
            raise SystemExit(f"{path}: not a valid bot (run `moonasm check --bot {path}`)")
        bots.append(loaded)
    return bots


def play(bots: list[Bot], options: GameOptions, seed: int) -> dict[str, Any]:
    game = Game(options, [b.name for b in bots], seed=seed)
    return game.play([b.program for b in bots])


@dataclass
class Duel:
    games: int = 0
    wins: int = 0  # games the first bot won alone
    losses: int = 0  # games the second bot won alone
    shared: int = 0
    solved: int = 0  # goals solved by the first bot
    solved_against: int = 0
    faults: int = 0  # faults of the first bot
    faults_against: int = 0

    def reversed(self) -> Duel:
        return Duel(self.games, self.losses, self.wins, self.shared, self.solved_against,
                    self.solved, self.faults_against, self.faults)


def duel(a: Bot, b: Bot, seeds: range, events: bool = False) -> Duel:
    d = Duel()
    for seed in seeds:
        for seats in ((a, b), (b, a)):
            result = play(list(seats), GameOptions(mode="versus", events=events), seed)
            me = 1 if seats[0] is a else 2
            other = 3 - me
            players = {p["seat"]: p for p in result["players"]}
            winners = result["winners"]
            d.games += 1
            if winners == [me]:
                d.wins += 1
            elif winners == [other]:
                d.losses += 1
            else:
                d.shared += 1
            d.solved += players[me]["solved"]
            d.solved_against += players[other]["solved"]
            d.faults += players[me]["faults"]
            d.faults_against += players[other]["faults"]
    return d


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def pairings(bots: list[Bot], duels: dict[tuple[str, str], Duel]) -> list[str]:
    out = ["| pairing | games | wins | ties | losses | goals solved a game | faults |",
           "|---|---|---|---|---|---|---|"]
    for first, second in itertools.combinations([b.name for b in bots], 2):
        d = duels[(first, second)]
        out.append(f"| {first} vs {second} | {d.games} | {d.wins} | {d.shared} | {d.losses} | "
                   f"{d.solved / d.games:.1f} – {d.solved_against / d.games:.1f} | "
                   f"{d.faults} – {d.faults_against} |")
    return out


def table(bots: list[Bot], seeds: range) -> str:
    n = len(seeds)
    out = [f"### Competitive: 2 players, 4 bits, novice, seeds {seeds.start}-{seeds.stop - 1}, "
           "both seat orders", "",
           f"Each cell: how often the row bot beats the column bot ({2 * n} games a pair; "
           "a tie in goals solved is a shared win, counted apart).", ""]
    names = [b.name for b in bots]
    duels: dict[tuple[str, str], Duel] = {}
    for a, b in itertools.combinations(bots, 2):
        duels[(a.name, b.name)] = duel(a, b, seeds)
        duels[(b.name, a.name)] = duels[(a.name, b.name)].reversed()
    out.append("| row beats column | " + " | ".join(names) + " |")
    out.append("|---|" + "---|" * len(names))
    for row in names:
        cells = []
        for column in names:
            if row == column:
                cells.append("—")
            else:
                d = duels[(row, column)]
                cells.append(f"{pct(d.wins, d.games)} (ties {pct(d.shared, d.games)})")
        out.append(f"| **{row}** | " + " | ".join(cells) + " |")
    out += [""] + pairings(bots, duels)
    out += ["", f"### Competitive with the 17 event cards (RESET, ERROR, OK), seeds "
            f"{seeds.start}-{seeds.stop - 1}, both seat orders", "",
            "An ERROR card disables a register or an operation until an OK card repairs it; "
            "a bot that reads `ERROR x` and `COST op` (spec §3.1) never faults on one.", ""]
    with_events = {(a.name, b.name): duel(a, b, seeds, events=True)
                   for a, b in itertools.combinations(bots, 2)}
    out += pairings(bots, with_events)
    out += ["", f"### Cooperative: each bot alone, 4 bits, seeds {seeds.start}-"
            f"{seeds.stop - 1}", "",
            "| bot | " + " | ".join(f"{lv}: won" for lv in LEVELS) + " | "
            + " | ".join(f"{lv}: goals solved" for lv in LEVELS) + " | faults |",
            "|---|" + "---|" * (2 * len(LEVELS) + 1)]
    for bot in bots:
        won = []
        solved = []
        faults = 0
        for level in LEVELS:
            wins = goals = 0
            for seed in seeds:
                result = play([bot], GameOptions(mode="coop", levels=(level,)), seed)
                wins += result["result"] == "won"
                goals += result["players"][0]["solved"]
                faults += result["players"][0]["faults"]
            won.append(pct(wins, n))
            solved.append(f"{goals / n:.1f}")
        out.append(f"| **{bot.name}** | " + " | ".join(won) + " | " + " | ".join(solved)
                   + f" | {faults} |")
    out += ["", "A lone player's deck holds 8 goal cards; at the novice level 3 of them go "
            "into B, C, D at the start (they count as solved), at the medium level 2, so "
            "the bot has 5, 6 or 8 goals to solve.", ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=100, help="seeds 1..N (default 100)")
    p.add_argument("--bots", type=Path, default=ROOT / "examples" / "bots",
                   help="directory of bots (default examples/bots)")
    args = p.parse_args(argv)
    bots = load(args.bots)
    order = {"counter": 0, "hoarder": 1, "builder": 2}
    bots.sort(key=lambda b: (order.get(b.name, 9), b.name))
    print(table(bots, range(1, args.seeds + 1)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
