"""The two modes' rules behind one interface: `CoopRules` (spec §4.2) and `VersusRules` (§4.3).

The engine (`moonasm.game.engine.Game`) runs turns and knows nothing of either mode; it asks
its `Rules` to deal, to say what goal the acting seat works on, to solve it, to carry out
`HACK`, and to end a round. Both modes share the engine's drawing, event cards and crediting.

Choices where the spec is silent (each also noted where it is made):

* Wide cooperative goals: the queue holds cards; consecutive pairs, oldest first, make the
  goals (the first card of a pair drawn is the left card). A card's slot is its age in
  rounds; a goal's slot is that of its oldest card. When the deck holds no more goal cards,
  a lone card is a goal by itself (in both modes: a competitive player drawing the deck's
  last goal card too).
* The cooperative game's initial register cards count as solved but score for nobody and
  grant no extra tokens.
* `HACK n` of a player with no goal left is a protection fault (the token is kept); hacking
  an already shown goal is allowed (the token still passes).
* A cooperative game that reaches `max_rounds` is lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from moonasm import isa
from moonasm.game import tables
from moonasm.game.cards import BUG_KIND, EVENT, GOAL, combine
from moonasm.game.deck import CardSpec, Deck, deal_coop, deal_versus
from moonasm.vm.machine import ProtectionFault

if TYPE_CHECKING:
    from moonasm.game.engine import Game


@dataclass(frozen=True)
class PendingGoal:
    """A cooperative goal waiting in the queue: its value (None while the second card of a
    wide goal is still in the deck), its cards, and its slot (that of its oldest card)."""

    goal: int | None
    cards: tuple[int, ...]
    slot: int


class Rules:
    """One mode's rules; `game` is the engine they act on."""

    def __init__(self, game: Game):
        self.game = game

    def deal(self, given: Sequence[CardSpec] | None) -> None:
        """Shuffle (or take `given`), set the table up and report the `Setup` event."""
        raise NotImplementedError

    def goal_of(self, seat: int) -> int | None:
        """The goal `seat` works on now (None: it has none)."""
        raise NotImplementedError

    def show_goal(self) -> None:
        """Set what the acting seat's `GOAL`, `GOALn` and solving read on the machine."""
        raise NotImplementedError

    def solved(self) -> bool:
        """`Hooks.solved`: A equals the acting seat's goal after an operation (or at its
        turn's start). Score every goal A now equals (A may equal the next one too); False
        ends the turn: the game is over, or the seat has no goal left to work on."""
        raise NotImplementedError

    def hack_acting(self, target: int) -> None:
        """`Hooks.hack`: `HACK target` by the acting seat."""
        self.hack(self.game.state.seat, target)

    def hack(self, seat: int, target: int) -> None:
        """`HACK target` by `seat` (raises ProtectionFault where it is refused)."""
        raise ProtectionFault("HACK is for competitive games; a cooperative game has no "
                              "secret goals")

    def end_round(self) -> None:
        """The end-of-round procedure (may finish the game)."""
        raise NotImplementedError

    def queue_counts(self) -> tuple[int, int]:
        """What `SLOT` and `PENDING` read: the active goal's slot and the goals pending
        (cooperative; both 0 in competitive mode)."""
        return 0, 0


class CoopRules(Rules):
    """Spec §4.2: one queue of goals everybody works on, slots, BUG cards blocking slots."""

    def deal(self, given: Sequence[CardSpec] | None) -> None:
        g = self.game
        initial, rest = deal_coop(g.options, g.players, g.seed, given)
        m = g.machine
        registers = tables.COOP_INITIAL_REGISTERS[g.options.level(1)]
        for register, c in zip(registers, initial, strict=True):
            value = int(c.value or 0) & m.mask  # (decision) one card per initial value
            m.regs[isa.REGISTERS.index(register)] = value
            if g.on_event is not None:
                g.on_event(g.make.Draw(None, GOAL, value, None, register))
        if g.options.level(1) == "hacker":
            m.regs[0] = tables.COOP_HACKER_A
        g.dealt = (*initial, *rest)
        g.state.deck = Deck(rest)
        self.fill()
        self.show_goal()
        if g.on_event is not None:
            pending = self.pending_goals()
            g.on_event(g.make.Setup(tuple(m.regs), len(g.state.deck),
                                tuple(p.goal for p in pending), g.state.bugs,
                                slots=tuple(p.slot for p in pending)))
        if not g.state.finished:
            self.check_won()

    # -- the queue ------------------------------------------------------------------------

    def active_cards(self) -> int:
        """How many pending cards make the active goal (0: no goal is active)."""
        st = self.game.state
        n = len(st.pending)
        per_goal = self.game.per_goal
        if n == 0:
            return 0
        if n >= per_goal:
            return per_goal
        return 0 if st.deck.goals_left() else n  # a lone card with no partner left

    def goal_of(self, seat: int) -> int | None:
        k = self.active_cards()
        if not k:
            return None
        return combine([c[0] for c in self.game.state.pending[:k]], self.game.options.bits)

    def show_goal(self) -> None:
        g = self.game
        m = g.machine
        goal = self.goal_of(g.state.seat)
        m.goal = m.target = goal
        m.shown = {} if goal is None else dict.fromkeys(range(1, g.players + 1), goal)

    def queue_counts(self) -> tuple[int, int]:
        """`SLOT`: the active goal's slot, 0 when none is active. `PENDING`: the goals in the
        queue, the active one included; a wide goal whose second card is still in the deck
        counts (its card holds a slot and can lose the game)."""
        pending = self.game.state.pending
        k = self.active_cards()
        slot = max(c[1] for c in pending[:k]) if k else 0
        per_goal = self.game.per_goal
        return slot, (len(pending) + per_goal - 1) // per_goal

    def pending_goals(self) -> list[PendingGoal]:
        """The goals in the queue, oldest (active) first; a wide goal whose second card is
        still in the deck has `goal` None."""
        g = self.game
        st = g.state
        per_goal = g.per_goal
        out = []
        for i in range(0, len(st.pending), per_goal):
            group = st.pending[i:i + per_goal]
            values = tuple(c[0] for c in group)
            complete = len(group) == per_goal or not st.deck.goals_left()
            goal = combine(values, g.options.bits) if complete else None
            out.append(PendingGoal(goal, values, max(c[1] for c in group)))
        return out

    def draw_goal_card(self) -> bool:
        """Draw until one goal card joins the queue (events and bugs met on the way resolve
        and drawing goes on). False when the deck ran out first or the game was lost."""
        g = self.game
        st = g.state
        while st.deck and not st.finished:
            card = g.draw(None)
            if card.kind == EVENT:
                g.resolve_event(card)
            elif card.kind == BUG_KIND:
                st.bugs += 1
                self.check_lost()  # the BUG takes its slot at once
            else:
                st.pending.append([int(card.value or 0), 1])
                return True
        return False

    def fill(self) -> None:
        """Draw until a goal is active, if the deck allows (setup; after the round's card)."""
        st = self.game.state
        while not st.finished and self.active_cards() == 0 and st.deck.goals_left():
            if not self.draw_goal_card():
                break

    def check_lost(self) -> bool:
        st = self.game.state
        limit = tables.LOSS_SLOT - st.bugs
        if any(slot >= limit for _, slot in st.pending):
            self.game.finish("lost")
            return True
        return False

    def check_won(self) -> bool:
        st = self.game.state
        if not st.pending and not st.deck.goals_left():
            self.game.finish("won")
            return True
        return False

    def solved(self) -> bool:
        g = self.game
        m = g.machine
        st = g.state
        while not st.finished and m.target is not None and m.regs[0] == m.target:
            self.solve(st.seat)
        m.slot, m.pending = self.queue_counts()
        return not st.finished and m.target is not None

    def solve(self, seat: int) -> None:
        """`seat` has solved the active goal: it leaves the queue, the next one shows."""
        g = self.game
        k = self.active_cards()
        values = [c[0] for c in g.state.pending[:k]]
        goal = combine(values, g.options.bits)
        del g.state.pending[:k]
        g.credit(seat, goal, values)
        self.check_won()
        self.show_goal()

    def end_round(self) -> None:
        """Every pending card moves up a slot; a card reaching the loss slot loses. Otherwise
        ONE goal card is drawn; only when no goal is then active (the queue was empty, or a
        wide goal still lacks its second card with the deck holding more) does drawing go on
        until one is (spec §4.2, last decision)."""
        st = self.game.state
        for card in st.pending:
            card[1] += 1
        if not self.check_lost():
            self.draw_goal_card()
            self.fill()
            if not st.finished:
                self.check_won()
        if not st.finished and st.round >= self.game.options.max_rounds:
            self.game.finish("lost")
        if not st.finished:
            self.show_goal()


class VersusRules(Rules):
    """Spec §4.3: a secret goal per seat, hack tokens, the game ends with the last goal card."""

    def deal(self, given: Sequence[CardSpec] | None) -> None:
        g = self.game
        dealt = deal_versus(g.options, g.seed, given)
        g.dealt = tuple(dealt)
        g.state.deck = Deck(dealt)
        seats = range(1, g.players + 1)
        for seat in seats:
            self.draw_goal(seat)
        if g.on_event is not None:
            st = g.state
            g.on_event(g.make.Setup(tuple(g.machine.regs), len(st.deck), (), st.bugs,
                                    goals=tuple(st.goal_values[s] for s in seats),
                                    hack_tokens=tuple(st.hack_tokens[s] for s in seats)))

    def goal_of(self, seat: int) -> int | None:
        return self.game.state.goal_values.get(seat)

    def show_goal(self) -> None:
        g = self.game
        st, m = g.state, g.machine
        m.goal = m.target = st.goal_values.get(st.seat)

    def draw_goal(self, seat: int) -> None:
        """Draw a goal (1 or 2 cards) for `seat`; a BUG is kept as a hack token and the
        player draws again; events resolve and drawing goes on. If the deck runs out
        half-way, a lone card is a goal by itself. Taking the deck's last goal card ends the
        game at the end of the round (spec §4.3)."""
        g = self.game
        st = g.state
        deck = st.deck
        per_goal = g.per_goal
        m = g.machine
        emit = g.on_event
        got: list[int] = []
        while deck:  # Game.draw, inlined: a competitive game draws at every solve
            card = deck.pop()
            if emit is not None:
                emit(g.make.Draw(seat, card.kind, card.value, card.name))
            kind = card.kind
            if kind == GOAL:
                got.append(card.value or 0)
                if len(deck) <= deck.last_goal:
                    st.last_goal_taken = True
                if len(got) == per_goal:
                    break
            elif kind == BUG_KIND:
                st.bugs += 1
                st.hack_tokens[seat] += 1
                m.hack_tokens[seat] = st.hack_tokens[seat]  # what TOKENS reads
            else:
                g.resolve_event(card)
        m.deck = len(deck)  # what DECK reads
        st.goals[seat] = got or None
        # (combine's own one-card case without the call: 2-3 µs of a game's 45 outside bots)
        st.goal_values[seat] = None if not got else got[0] if len(got) == 1 else \
            combine(got, g.options.bits)

    def solved(self) -> bool:
        """(A competitive game never ends within a turn: only at the end of a round.)"""
        g = self.game
        m = g.machine
        st = g.state
        seat = st.seat
        goal = m.target
        plain = g.on_event is None and not g._tokens  # credit is the score alone
        while goal is not None and m.regs[0] == goal:
            if plain:  # (Game.credit, inlined: a competitive game solves at every turn)
                score = st.scores[seat] = st.scores[seat] + 1
                m.scores[seat] = score  # what SCOREn reads
            else:
                g.credit(seat, goal, st.goals[seat] or [])
            m.shown.pop(seat, None)
            st.goals[seat] = st.goal_values[seat] = None  # none while the next is drawn
            self.draw_goal(seat)
            m.goal = m.target = goal = st.goal_values[seat]
        return goal is not None

    def hack(self, seat: int, target: int) -> None:
        g = self.game
        st = g.state
        if target == seat:
            raise ProtectionFault(f"player {seat} cannot hack themselves")
        if not 1 <= target <= g.players:
            raise ProtectionFault(f"player {target} is not playing (this game has "
                                  f"{g.players} player{'s' if g.players > 1 else ''})")
        if st.hack_tokens[seat] < 1:
            raise ProtectionFault(f"player {seat} holds no bug card to hack with")
        goal = st.goal_values.get(target)
        if goal is None:
            raise ProtectionFault(f"player {target} has no goal to show")
        st.hack_tokens[seat] -= 1
        st.hack_tokens[target] += 1
        tokens = g.machine.hack_tokens  # what TOKENS reads
        tokens[seat], tokens[target] = st.hack_tokens[seat], st.hack_tokens[target]
        g.machine.shown[target] = goal
        if g.on_event is not None:
            g.on_event(g.make.Hack(seat, target, goal))

    def end_round(self) -> None:
        st = self.game.state
        if st.last_goal_taken or st.round >= self.game.options.max_rounds:
            self.game.finish("finished")
