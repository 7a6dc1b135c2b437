"""LTLf text -> :mod:`planning_core.temporal.ltl` formulas (``grammars/ltl.lark``).

Syntax, loosest binding first::

    f <-> g     f -> g (right-assoc.)     f | g     f & g     f U g, f R g, f W g (right-assoc.)
    !f  X f  WX f  F f  G f     (f)   true   false   last
    (on a b)   on(a, b)   (on _ b)   @(stack a b)   # a comment to the end of the line

``&&``/``||``/``~``/``=>``/``<=>`` are accepted for ``&``/``|``/``!``/``->``/``<->``.
Temporal operators are upper-case keywords; names are lower-cased (PDDL is
case-insensitive). ``_`` is an argument that matches any object.

Atoms versus actions. ``@(stack a b)`` is always an action occurrence. An unmarked leaf is
resolved against a :class:`Vocabulary` (the domain's predicates and actions): a predicate
name gives an :class:`~planning_core.temporal.ltl.Atom`, else an action name an
:class:`~planning_core.temporal.ltl.Occurs`; a name that is both is read as the predicate
(write ``@`` for the action). With a vocabulary, unknown names, wrong arities and unknown
objects are :class:`~planning_core.errors.SemanticError` with line and column; without one,
every unmarked leaf is an atom.
"""
from __future__ import annotations

from dataclasses import dataclass

from lark import Token, Transformer
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)

from planning_core.errors import PlanningError, SemanticError
from planning_core.grammar_files import lazy_parser
from planning_core.limits import active_budget
from planning_core.pddl import ast as pddl
from planning_core.pddl.ast import Pos
from planning_core.temporal import ltl

__all__ = ["LTLSyntaxError", "Vocabulary", "parse_ltl", "resolve"]


class LTLSyntaxError(PlanningError):
    """Text that is not an LTLf formula: says where, what was found and what was expected."""


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """What leaves may name: predicate and action arities, and (optionally) the objects."""

    predicates: tuple[tuple[str, int], ...]
    actions: tuple[tuple[str, int], ...]
    objects: frozenset[str] | None = None

    @classmethod
    def of(cls, domain: pddl.Domain, problem: pddl.Problem | None = None) -> "Vocabulary":
        """The vocabulary of a domain (predicates, actions) and a problem's objects."""
        objects = None
        if problem is not None:
            objects = frozenset(o.name for o in problem.objects) | frozenset(
                c.name for c in domain.constants)
        preds = tuple(sorted((p.name, p.arity) for p in domain.predicates))
        derived = tuple(sorted((d.head.name, d.head.arity) for d in domain.derived))
        acts = tuple(sorted((a.name, a.arity) for a in domain.actions))
        return cls(tuple(sorted(set(preds + derived))), acts, objects)

    def arity(self, name: str, actions: bool) -> int | None:
        for n, k in (self.actions if actions else self.predicates):
            if n == name:
                return k
        return None


class _ToFormula(Transformer):
    """Tree -> formula; leaves become Atom/Occurs at once (resolution happens afterwards)."""

    def __default_token__(self, tok: Token) -> Token:
        return tok

    def argument(self, items):
        return items[0].value.lower() if items[0].type == "NAME" else ltl.WILDCARD

    def sexpr(self, items):
        marked = isinstance(items[0], Token) and items[0].type == "ACTION_MARK"
        name_tok = next(t for t in items if isinstance(t, Token) and t.type == "NAME")
        args = tuple(a for a in items if isinstance(a, str) and not isinstance(a, Token))
        return _leaf(name_tok, args, marked)

    def call(self, items):
        marked = isinstance(items[0], Token) and items[0].type == "ACTION_MARK"
        name_tok = next(t for t in items if isinstance(t, Token) and t.type == "NAME")
        args = tuple(a for a in items
                     if isinstance(a, str) and not isinstance(a, Token) and a is not None)
        return _leaf(name_tok, args, marked)

    def true(self, _):
        return ltl.TRUE

    def false(self, _):
        return ltl.FALSE

    def last(self, _):
        return ltl.LAST

    def negation(self, items):
        return ltl.Not(items[-1])

    def next(self, items):
        return ltl.Next(items[-1])

    def weak_next(self, items):
        return ltl.WeakNext(items[-1])

    def eventually(self, items):
        return ltl.Eventually(items[-1])

    def always(self, items):
        return ltl.Always(items[-1])

    def until(self, items):
        return ltl.Until(items[0], items[-1])

    def release(self, items):
        return ltl.Release(items[0], items[-1])

    def weak_until(self, items):
        return ltl.WeakUntil(items[0], items[-1])

    def conjunction(self, items):
        parts = tuple(i for i in items if not isinstance(i, Token))
        return parts[0] if len(parts) == 1 else ltl.And(parts)

    def disjunction(self, items):
        parts = tuple(i for i in items if not isinstance(i, Token))
        return parts[0] if len(parts) == 1 else ltl.Or(parts)

    def implies(self, items):
        return ltl.Implies(items[0], items[-1])

    def iff(self, items):
        return ltl.Iff(items[0], items[-1])


def _leaf(name_tok: Token, args: tuple[str, ...], marked: bool):
    pos = Pos(name_tok.line, name_tok.column)
    name = name_tok.value.lower()
    return ltl.Occurs(name, args, pos) if marked else ltl.Atom(name, args, pos)


_READABLE = {"NAME": "a name", "WILDCARD": "_", "ACTION_MARK": "@", "NOT": "!",
             "AND": "&", "OR": "|", "IMPLIES": "->", "IFF": "<->", "LPAR": "(",
             "RPAR": ")", "COMMA": ",", "$END": "end of input"}


class _Metered:
    """Post-lexer that ticks the active budget once per token (``limits.metering``): a
    1 MB formula takes ten CPU seconds to parse, longer than any time limit."""

    always_accept = ()

    def process(self, stream):
        budget = active_budget()
        for tok in stream:
            if budget is not None:
                budget.tick()
            yield tok


_get_parser = lazy_parser("ltl.lark", parser="lalr", lexer="contextual", maybe_placeholders=True,
                          propagate_positions=False, cache=True, postlex=_Metered())


def _readable(name: str) -> str:
    if name in _READABLE:
        return _READABLE[name]
    for t in _get_parser().terminals:
        if t.name == name and t.pattern.type == "str":
            return repr(t.pattern.value)
    return name


def _syntax_error(err: UnexpectedInput, filename: str | None, text: str) -> LTLSyntaxError:
    if isinstance(err, UnexpectedCharacters):
        found = repr(err.char)
        expected = sorted({_readable(n) for n in err.allowed or ()})
    elif isinstance(err, UnexpectedToken):
        found = "end of input" if err.token.type == "$END" else repr(err.token.value)
        expected = sorted({_readable(n) for n in err.expected})
    elif isinstance(err, UnexpectedEOF):
        found, expected = "end of input", sorted({_readable(n) for n in err.expected})
    else:  # pragma: no cover - lark raises only the three kinds above
        found, expected = "?", []
    shown = ", ".join(expected[:10]) + (", ..." if len(expected) > 10 else "")
    hint = ""
    if expected == ["("] and isinstance(err, (UnexpectedToken, UnexpectedEOF)):
        hint = " (a name starts an atom: write (arm-empty) or (on a b), not arm-empty)"
    line, column = getattr(err, "line", None), getattr(err, "column", None)
    if found == "end of input":  # point just past the last character written
        body = text.rstrip()
        line = body.count("\n") + 1
        column = len(body) - (body.rfind("\n") + 1) + 1
    return LTLSyntaxError(f"found {found}; expected {shown or 'nothing more'}{hint}",
                          file=filename, line=line, column=column)


def parse_ltl(text: str, vocabulary: Vocabulary | None = None, *,
              filename: str | None = None) -> ltl.Formula:
    """Parse one formula; see the module docstring. Raises :class:`LTLSyntaxError` for
    text that is not a formula and ``SemanticError`` for names the vocabulary lacks."""
    if not "".join(line.split("#", 1)[0] for line in text.splitlines()).strip():
        raise LTLSyntaxError("the formula is empty", file=filename, line=1, column=1)
    try:
        tree = _get_parser().parse(text)
        formula = _ToFormula().transform(tree)
    except UnexpectedInput as err:
        raise _syntax_error(err, filename, text) from None
    except VisitError as err:
        inner = err.orig_exc
        if isinstance(inner, RecursionError):
            raise LTLSyntaxError("formula nested too deeply", file=filename) from None
        raise inner from None
    except RecursionError:
        raise LTLSyntaxError("formula nested too deeply", file=filename) from None
    return resolve(formula, vocabulary, filename=filename) if vocabulary else formula


def resolve(f: ltl.Formula, vocabulary: Vocabulary, *, filename: str | None = None) -> ltl.Formula:
    """Turn unmarked leaves that name actions into occurrences, and check every leaf's
    name, arity and objects against ``vocabulary`` (see the module docstring)."""
    if isinstance(f, (ltl.Atom, ltl.Occurs)):
        return _resolve_leaf(f, vocabulary, filename)
    if isinstance(f, (ltl.Const,)):
        return f
    if isinstance(f, (ltl.And, ltl.Or)):
        return type(f)(tuple(resolve(p, vocabulary, filename=filename) for p in f.parts))
    if isinstance(f, (ltl.Not, ltl.Next, ltl.WeakNext, ltl.Eventually, ltl.Always)):
        return type(f)(resolve(f.body, vocabulary, filename=filename))
    return type(f)(resolve(f.left, vocabulary, filename=filename),
                   resolve(f.right, vocabulary, filename=filename))


def _resolve_leaf(leaf, vocab: Vocabulary, filename: str | None):
    marked = isinstance(leaf, ltl.Occurs)
    name = leaf.action if marked else leaf.predicate
    pos = leaf.pos
    where = dict(file=filename, line=pos and pos.line, column=pos and pos.column)
    pred_arity = None if marked else vocab.arity(name, actions=False)
    act_arity = vocab.arity(name, actions=True)
    if pred_arity is not None:
        arity, kind, out = pred_arity, "predicate", ltl.Atom(name, leaf.args, pos)
    elif act_arity is not None:
        arity, kind, out = act_arity, "action", ltl.Occurs(name, leaf.args, pos)
    elif marked:
        known = ", ".join(n for n, _ in vocab.actions) or "none"
        raise SemanticError(f"unknown action '{name}' after @; the actions are: {known}",
                            **where)
    else:
        names = sorted({n for n, _ in vocab.predicates} | {n for n, _ in vocab.actions})
        raise SemanticError(f"unknown name '{name}': neither a predicate nor an action; "
                            f"expected one of: {', '.join(names) or 'none'}", **where)
    if len(leaf.args) != arity:
        raise SemanticError(f"{kind} '{name}' takes {arity} argument(s), found "
                            f"{len(leaf.args)}", **where)
    if vocab.objects is not None:
        for a in leaf.args:
            if a != ltl.WILDCARD and a not in vocab.objects:
                raise SemanticError(f"unknown object '{a}' in ({name} "
                                    f"{' '.join(leaf.args)})", **where)
    return out
