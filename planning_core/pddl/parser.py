"""PDDL text -> lifted AST (``planning_core.pddl.ast``).

The grammar is ``grammars/pddl.lark`` (LALR(1), contextual lexer). The transformer runs
inline during the parse (no intermediate tree), which keeps parsing of the large IPC
problems fast. PDDL is case-insensitive, so the text is lower-cased once before parsing;
positions are unaffected.

Every failure is a :class:`~planning_core.errors.PDDLSyntaxError` with file, line and
column, what was found, what was expected and a breadcrumb of where in the file it happened
(the wording is :mod:`.syntax_errors`'). A problem's flat ``:init`` and a goal that is a
conjunction of flat atoms are read by regexes first (:mod:`.fast_init`). All parser
state lives in one :class:`_PddlParser`, built on first use.
"""
from __future__ import annotations

import re
import threading
from dataclasses import replace
from itertools import accumulate
from pathlib import Path

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedInput

from planning_core.errors import PDDLSyntaxError, PlanningError, SemanticError, UnsupportedFeature
from planning_core.grammar_files import built_once, grammar_text
from planning_core.limits import active_budget
from planning_core.pddl import ast as pddl
from planning_core.pddl import fast_init
from planning_core.pddl.files import read_text
from planning_core.pddl.syntax_errors import UNSUPPORTED_SECTIONS, explain_syntax_error

__all__ = ["parse", "parse_domain", "parse_problem", "parse_domain_file", "parse_problem_file",
           "read_text"]

# ------------------------------------------------------------------- transformer

def _find_function(expr, name: str):
    """The first ``FunctionTerm`` called ``name`` inside a numeric expression, or None."""
    todo = [expr]
    while todo:
        e = todo.pop()
        if isinstance(e, pddl.FunctionTerm) and e.name == name:
            return e
        if isinstance(e, pddl.BinaryOp):
            todo += [e.right, e.left]
    return None


class _NegatedInit:
    """``(not (p ...))`` in :init (collected into ``Problem.negated_init``)."""

    __slots__ = ("atom",)

    def __init__(self, atom: pddl.Atom) -> None:
        self.atom = atom


class _Section:
    """A tagged top-level item of a domain or problem, dispatched on ``kind``."""

    __slots__ = ("kind", "value", "pos")

    def __init__(self, kind: str, value, pos: pddl.Pos | None = None) -> None:
        self.kind, self.value, self.pos = kind, value, pos


class _TypeAnnotation:
    __slots__ = ("types", "pos")

    def __init__(self, types: tuple[str, ...], pos: pddl.Pos) -> None:
        self.types, self.pos = types, pos


def _pos(tok: Token) -> pddl.Pos:
    return pddl.Pos(tok.line, tok.column)


def _group_typed(items: list) -> tuple[pddl.TypedName, ...]:
    """Turn the flat ``a b - t c`` into typed names; untyped trailing names are objects."""
    out: list[pddl.TypedName] = []
    pending: list[Token] = []
    for item in items:
        if isinstance(item, _TypeAnnotation):
            if not pending:
                raise PDDLSyntaxError(
                    "found '- " + " ".join(item.types) + "' with no names before it; "
                    "expected names or variables, then '- type'",
                    line=item.pos.line, column=item.pos.column)
            out.extend(pddl.TypedName(str(t), item.types, _pos(t)) for t in pending)
            pending = []
        else:
            pending.append(item)
    out.extend(pddl.TypedName(str(t), ("object",), _pos(t)) for t in pending)
    return tuple(out)


class _ToAst(Transformer):
    """Stateless: builds AST nodes bottom-up while LALR reduces."""

    # -- names and typed lists
    def single_type(self, c):
        return _TypeAnnotation((str(c[0]),), _pos(c[0]))

    def either_type(self, c):
        return _TypeAnnotation(tuple(str(t) for t in c), _pos(c[0]))

    def type_annotation(self, c):
        return c[0]

    def typed_names(self, c):
        return _group_typed(c)

    typed_vars = typed_names

    def variable(self, c):
        return c[0]

    # -- formulas
    def atomic(self, c):
        head, *args = c
        return pddl.Atom(str(head), tuple(str(a) for a in args), _pos(head))

    def and_(self, c):
        return pddl.And(tuple(c))

    def empty_and(self, c):
        return pddl.TRUE

    def or_(self, c):
        return pddl.Or(tuple(c))

    def not_(self, c):
        return pddl.Not(c[0])

    def imply(self, c):
        antecedent, consequent = c
        return pddl.Imply(antecedent, consequent)

    def exists(self, c):
        params, body = c
        return pddl.Exists(params, body)

    def forall(self, c):
        params, body = c
        return pddl.Forall(params, body)

    def equals(self, c):
        left, right = c
        if isinstance(left, Token) and isinstance(right, Token):
            return pddl.Equals(str(left), str(right), _pos(left))
        left, right = _as_numeric(left), _as_numeric(right)
        return pddl.Comparison("=", left, right, _numeric_pos(left) or _numeric_pos(right))

    def comparison(self, c):
        op, left, right = c
        return pddl.Comparison(str(op), left, right, _pos(op))

    # -- numeric
    def f_head(self, c):
        head, *args = c
        return pddl.FunctionTerm(str(head), tuple(str(a) for a in args), _pos(head))

    def number(self, c):
        return pddl.Number(_number(c[0]), _pos(c[0]))

    def numeric_variable(self, c):
        return pddl.NumericVariable(str(c[0]), _pos(c[0]))

    def binary(self, c):
        op, left, right = c
        return pddl.BinaryOp(str(op), left, right, _pos(op))

    def minus(self, c):
        left, right = c
        return pddl.BinaryOp("-", left, right, _numeric_pos(left))

    def negate(self, c):
        # unary minus is (- 0 e): the same value, and one node class fewer for every pass
        return pddl.BinaryOp("-", pddl.Number(0.0), c[0], _numeric_pos(c[0]))

    # -- effects
    def add(self, c):
        return pddl.Add(c[0])

    def delete(self, c):
        return pddl.Delete(c[0])

    def increase(self, c):
        fluent, amount = c
        return pddl.Increase(fluent, amount, fluent.pos)

    def numeric_effect(self, c):
        op, fluent, amount = c
        return pddl.NumericEffect(str(op), fluent, amount, _pos(op))

    def and_effect(self, c):
        return tuple(c)

    def single_effect(self, c):
        return (c[0],)

    def empty_effect(self, c):
        return ()

    def forall_effect(self, c):
        params, effects = c
        return pddl.ForallEffect(params, effects)

    def when(self, c):
        condition, effects = c
        return pddl.When(condition, effects)

    # -- PDDL3 trajectory constraints
    def con_and(self, c):
        return pddl.ConstraintAnd(tuple(c))

    def con_forall(self, c):
        params, body = c
        return pddl.ConstraintForall(params, body)

    def always(self, c):
        return pddl.Always(c[0])

    def sometime(self, c):
        return pddl.Sometime(c[0])

    def at_most_once(self, c):
        return pddl.AtMostOnce(c[0])

    def sometime_before(self, c):
        body, before = c
        return pddl.SometimeBefore(body, before)

    def sometime_after(self, c):
        body, after = c
        return pddl.SometimeAfter(body, after)

    def at_end(self, c):
        return pddl.AtEnd(c[0])

    def time_window(self, c):
        tok = c[0]
        raise UnsupportedFeature(f"'{tok}' is not supported: "
                                 f"{UNSUPPORTED_SECTIONS[str(tok)]}", line=tok.line, column=tok.column)

    def constraints_def(self, c):
        return _Section("constraints", c[0])

    # -- domain
    def requirements(self, c):
        return _Section("requirements", tuple(str(r) for r in c))

    def types_def(self, c):
        return _Section("types", c[0])

    def constants_def(self, c):
        return _Section("constants", c[0])

    def predicate_def(self, c):
        name, params = c
        return pddl.PredicateDef(str(name), params, _pos(name))

    def predicates_def(self, c):
        return _Section("predicates", tuple(c))

    def function_skeleton(self, c):
        name, params = c
        return pddl.FunctionDef(str(name), params, "number", _pos(name))

    def function_items(self, c):
        out: list[pddl.FunctionDef] = []
        pending: list[pddl.FunctionDef] = []
        for item in c:
            if isinstance(item, _TypeAnnotation):
                out.extend(pddl.FunctionDef(f.name, f.parameters, item.types[0], f.pos) for f in pending)
                pending = []
            else:
                pending.append(item)
        out.extend(pending)
        return tuple(out)

    def functions_def(self, c):
        return _Section("functions", c[0])

    def parameters(self, c):
        return _Section("parameters", c[0])

    def precondition(self, c):
        return _Section("precondition", c[0])

    def effect(self, c):
        return _Section("effect", c[0])

    def action_def(self, c):
        name, *parts = c
        fields: dict = {}
        for part in parts:
            if part.kind in fields:
                raise PDDLSyntaxError(f"action '{name}' has two :{part.kind} parts",
                                      line=name.line, column=name.column)
            fields[part.kind] = part.value
        return _Section("action", pddl.Action(
            str(name), fields.get("parameters", ()), fields.get("precondition", pddl.TRUE),
            fields.get("effect", ()), _pos(name)))

    # -- durative actions (PDDL 2.1)
    def duration_eq(self, c):
        var, value = c
        return _duration("=", var, value)

    def duration_cmp(self, c):
        op, var, value = c
        return _duration(str(op), var, value)

    def duration_at(self, c):
        when, inner = c
        return replace(inner, time=str(when))

    def duration_empty(self, c):
        return ()

    def duration_and(self, c):
        return tuple(c)

    def duration_one(self, c):
        return (c[0],)

    def duration(self, c):
        return _Section("duration", c[0])

    def timed_empty(self, c):
        return []

    def timed_and(self, c):
        return [x for part in c for x in part]

    def timed_cond(self, c):
        when, body = c
        return [(str(when), body)]

    def over_all(self, c):
        return [("all", c[0])]

    def timed_effect(self, c):
        when, effects = c
        return [(str(when), effects)]

    def timed_when(self, c):
        """``(when (at start c) (at start e))``: a conditional effect at one end of the
        action, its condition read in the state before that end's happening (PDDL 2.1's
        ``<da-effect> ::= (when <da-GD> <timed-effect>)``). A condition at another time
        than its effect, or ``over all``, is refused by name."""
        conditions, effects = c
        said = {when for when, _ in conditions}
        done = {when for when, _ in effects}
        if "continuous" in done:
            _refuse_continuous_inside("when", effects)
        if not effects:
            return []
        body = tuple(e for _, part in effects for e in part)
        if not conditions:
            return [(done.pop(), body)] if len(done) == 1 else effects
        condition = _conjunction([b for _, b in conditions])
        if said == {"start"} and done == {"end"}:
            # read at the start, done at the end (VAL's CondCommunicationAction)
            return [("end", (pddl.When(condition, body, at_start=True),))]
        if len(said | done) > 1 or "all" in said:
            pos = next((p for _, b in conditions if (p := _leftmost_pos(b))), None)
            times = " and ".join(sorted("over all" if t == "all" else f"at {t}"
                                        for t in said | done))
            raise UnsupportedFeature(
                f"a conditional effect with its condition and effect at these times "
                f"({times}) is not supported; expected its condition and effect at one time, "
                "or '(when (at start c) (at end e))'",
                line=pos and pos.line, column=pos and pos.column)
        return [(done.pop(), (pddl.When(condition, body),))]

    def timed_forall(self, c):
        params, effects = c
        if any(when == "continuous" for when, _ in effects):
            _refuse_continuous_inside("forall", effects)
        for _, part in effects:
            for e in part:
                if isinstance(e, pddl.When) and e.at_start:
                    pos = _leftmost_pos(e.condition)
                    raise UnsupportedFeature(
                        "a conditional effect read at start and done at end inside 'forall' "
                        "is not supported; expected it outside the 'forall'",
                        line=pos and pos.line, column=pos and pos.column)
        by_time: dict = {}
        for when, part in effects:
            by_time.setdefault(when, []).extend(part)
        return [(when, (pddl.ForallEffect(params, tuple(part)),))
                for when, part in by_time.items()]

    def rate_one(self, c):
        return (c[0], pddl.Number(1.0, _pos(c[0])))

    def rate_times(self, c):
        op, hasht, rate = c
        return self._rate(op, hasht, rate)

    def rate_times_after(self, c):
        op, rate, hasht = c
        return self._rate(op, hasht, rate)

    @staticmethod
    def _rate(op, hasht, rate):
        if str(op) != "*":
            raise UnsupportedFeature(f"'#t' under '{op}' is not supported: a continuous effect "
                                     "is read as a rate; expected '(* #t e)'",
                                     line=hasht.line, column=hasht.column)
        return (hasht, rate)

    def continuous_increase(self, c):
        fluent, (hasht, rate) = c
        return [("continuous", (pddl.Increase(fluent, rate, fluent.pos),))]

    def continuous_update(self, c):
        op, fluent, (hasht, rate) = c
        if str(op).lower() != "decrease":
            raise UnsupportedFeature(f"a continuous '{op}' is not supported; expected "
                                     "'increase' or 'decrease' by '(* #t e)'",
                                     line=op.line, column=op.column)
        return [("continuous", (pddl.NumericEffect("decrease", fluent, rate, _pos(op)),))]

    def continuous_effect(self, c):
        pos = c[-2].pos
        raise UnsupportedFeature("a numeric effect without 'at start' or 'at end' is a "
                                 "continuous effect (PDDL 2.1 level 4), which is not supported",
                                 line=pos and pos.line, column=pos and pos.column)

    def condition(self, c):
        return _Section("condition", c[0])

    def da_effect(self, c):
        return _Section("effect", c[0])

    def durative_action_def(self, c):
        name, *parts = c
        fields: dict = {}
        for part in parts:
            if part.kind in fields:
                raise PDDLSyntaxError(f"durative action '{name}' has two :{part.kind} parts",
                                      line=name.line, column=name.column)
            fields[part.kind] = part.value
        conditions = {"start": [], "all": [], "end": []}
        for when, body in fields.get("condition", []):
            conditions[when].append(body)
        effects = {"start": [], "end": [], "continuous": []}
        for when, body in fields.get("effect", []):
            effects[when].extend(body)
        return _Section("action", pddl.Action(
            str(name), fields.get("parameters", ()), _conjunction(conditions["start"]),
            tuple(effects["start"]), _pos(name), durative=True,
            duration=fields.get("duration", ()), over_all=_conjunction(conditions["all"]),
            end_condition=_conjunction(conditions["end"]), end_effects=tuple(effects["end"]),
            continuous=tuple(effects["continuous"])))

    def derived_def(self, c):
        name, params, body = c
        return _Section("derived", pddl.DerivedPredicate(pddl.PredicateDef(str(name), params, _pos(name)),
                                                      body, _pos(name)))

    def domain(self, c):
        name, *sections = c
        return _build(pddl.Domain, str(name), _pos(name), sections, {
            "requirements": "requirements", "types": "types", "constants": "constants",
            "predicates": "predicates", "functions": "functions", "constraints": "constraints"},
            lists={"action": "actions", "derived": "derived"})

    # -- problem
    def domain_ref(self, c):
        return _Section("domain_name", str(c[0]), _pos(c[0]))

    def objects_def(self, c):
        return _Section("objects", c[0])

    def numeric_init(self, c):
        fluent, value = c
        return pddl.NumericInit(fluent, _number(value), fluent.pos)

    def negated_init(self, c):
        return _NegatedInit(c[0])

    def timed_literal(self, c):
        word, time, literal = c
        if str(word) != "at":
            raise PDDLSyntaxError(f"unexpected number '{time}' after '{word}' in :init; "
                                  "expected an atom '(p a ...)' or a timed initial literal "
                                  "'(at TIME (p a ...))'", line=time.line, column=time.column)
        value = _number(time)
        if value < 0:
            raise SemanticError(f"timed initial literal at negative time {time}; expected a "
                                "time >= 0", line=time.line, column=time.column)
        if isinstance(literal, _NegatedInit):
            return pddl.TimedLiteral(value, literal.atom, False, _pos(word))
        return pddl.TimedLiteral(value, literal, True, _pos(word))

    def init_def(self, c):
        return _Section("init", tuple(c))

    def goal_def(self, c):
        return _Section("goal", c[0], _leftmost_pos(c[0]))

    def metric_def(self, c):
        direction, expr = c
        violated = _find_function(expr, "is-violated")
        if violated is not None:
            pos = violated.pos
            raise UnsupportedFeature("'is-violated' is not supported: preferences (PDDL3) in "
                                     "the metric", line=pos and pos.line,
                                     column=pos and pos.column)
        return _Section("metric", pddl.Metric(str(direction), expr, _pos(direction)), _pos(direction))

    def problem(self, c):
        name, *sections = c
        inits = [x for s in sections if s.kind == "init" for x in s.value]
        if len(inits) or any(s.kind == "init" for s in sections):
            atoms = tuple(x for x in inits if isinstance(x, pddl.Atom))
            numeric = tuple(x for x in inits if isinstance(x, pddl.NumericInit))
            negated = tuple(x.atom for x in inits if isinstance(x, _NegatedInit))
            timed = tuple(x for x in inits if isinstance(x, pddl.TimedLiteral))
            if timed:
                sections.append(_Section("timed_literals", timed))
            sections = [s for s in sections if s.kind != "init"]
            sections += [_Section("init", atoms), _Section("numeric_init", numeric)]
            if negated:
                sections.append(_Section("negated_init", negated))
        return _build(pddl.Problem, str(name), _pos(name), sections, {
            "domain_name": "domain_name", "requirements": "requirements", "objects": "objects",
            "init": "init", "numeric_init": "numeric_init", "goal": "goal", "metric": "metric",
            "constraints": "constraints", "negated_init": "negated_init",
            "timed_literals": "timed_literals"},
            lists={})


def _number(tok: Token) -> float:
    """A NUMBER token's value; one too large for a float (``1`` and 400 zeros) is refused
    here, located, rather than becoming ``inf`` and poisoning every sum after it."""
    value = float(tok)
    if value in (float("inf"), float("-inf")):
        raise PDDLSyntaxError(f"number {str(tok)[:20]}... is too large (beyond "
                              f"{_MAX_FLOAT:.4g}); expected a finite number",
                              line=tok.line, column=tok.column)
    return value


_MAX_FLOAT = 1.7976931348623157e308


def _as_numeric(x):
    """One side of ``(= a b)`` as a numeric expression (a bare name is a 0-ary fluent)."""
    if isinstance(x, Token):
        if x.type == "VARIABLE":
            return pddl.NumericVariable(str(x), _pos(x))
        return pddl.FunctionTerm(str(x), (), _pos(x))
    return x


def _numeric_pos(e) -> pddl.Pos | None:
    while e is not None and getattr(e, "pos", None) is None:
        e = getattr(e, "left", None)
    return None if e is None else e.pos


def _duration(op: str, var: Token, value) -> pddl.DurationConstraint:
    if str(var) != "?duration":
        raise PDDLSyntaxError(f"unexpected variable '{var}' in :duration; expected ?duration",
                              line=var.line, column=var.column)
    return pddl.DurationConstraint(op, value, "", _pos(var))


def _refuse_continuous_inside(word: str, effects: list) -> None:
    e = next(part[0] for when, part in effects if when == "continuous")
    pos = e.pos
    raise UnsupportedFeature(f"a continuous effect inside '{word}' is not supported; expected "
                             "it directly in the action's :effect",
                             line=pos and pos.line, column=pos and pos.column)


def _conjunction(parts: list) -> pddl.Formula:
    if not parts:
        return pddl.TRUE
    return parts[0] if len(parts) == 1 else pddl.And(tuple(parts))


def _leftmost_pos(f) -> pddl.Pos | None:
    """The position of a formula's first atom (connectives are built without one), so that
    a section with no token of its own, such as a second ``(:goal``, can still be located."""
    while getattr(f, "pos", None) is None:
        parts = getattr(f, "parts", None)
        f = parts[0] if parts else getattr(f, "body", None) or getattr(f, "antecedent", None)
        if f is None:
            return None
    return f.pos


def _build(cls, name: str, pos: pddl.Pos, sections: list, singles: dict, lists: dict):
    """Assemble a Domain/Problem from its sections.

    A repeated section that is a list (two ``:predicates`` blocks) is concatenated, as
    planners do; a repeated single value (two ``:goal``) is an error.
    """
    fields: dict = {}
    many: dict[str, list] = {v: [] for v in lists.values()}
    for s in sections:
        if s.kind in lists:
            many[lists[s.kind]].append(s.value)
            continue
        key = singles[s.kind]
        if key in fields:
            if isinstance(fields[key], tuple) and key not in ("goal", "constraints"):
                fields[key] = fields[key] + s.value
                continue
            raise PDDLSyntaxError(f"section :{s.kind} appears twice",
                                  line=s.pos.line if s.pos else None,
                                  column=s.pos.column if s.pos else None)
        fields[key] = s.value
    fields.update({k: tuple(v) for k, v in many.items()})
    if cls is pddl.Problem and "domain_name" not in fields:
        raise PDDLSyntaxError(f"problem '{name}' has no (:domain ...) section; expected "
                              "(:domain NAME) after (problem NAME)", line=pos.line, column=pos.column)
    return cls(name=name, pos=pos, **fields)


# ------------------------------------------------------------------------ parser

class _KeywordBoundary:
    """Post-lexer that refuses a keyword glued to more name characters.

    lark matches string keywords as prefixes where no name is acceptable, so ``(:actions``
    would lex as ``:action`` + ``s`` and ``(:initial-state`` as ``:init`` + ``ial-state``.
    A keyword must end where a word ends; otherwise the whole word is reported at its start.
    The text being parsed is kept per thread, since one parser serves every thread.
    """

    always_accept = ()

    def __init__(self) -> None:
        self.keywords: frozenset[str] = frozenset()
        self.local = threading.local()

    def process(self, stream):
        keywords, text = self.keywords, self.local.text
        size = len(text)
        budget = active_budget()   # every token counts against the caller's budget
        for tok in stream:
            if budget is not None:
                budget.tick()
            if tok.type in keywords and tok.end_pos < size and _WORD_CHAR.match(text, tok.end_pos):
                end = tok.end_pos
                while end < size and _WORD_CHAR.match(text, end):
                    end += 1
                word = text[tok.start_pos:end]
                what = "unknown keyword" if word.startswith(":") else "unexpected"
                raise PDDLSyntaxError(f"{what} '{word}' (did you mean '{tok.value}'?)",
                                      line=tok.line, column=tok.column)
            yield tok


_WORD_CHAR = re.compile(r"[a-z0-9_\-]")

_READABLE = {"NAME": "a name", "VARIABLE": "a variable (?x)", "NUMBER": "a number",
             "REQUIREMENT": "a requirement (:strips)", "METRIC_DIRECTION": "minimize or maximize",
             "BINOP": "an operator (+ * /)", "$END": "end of file", "<END-OF-FILE>": "end of file"}


class _PddlParser:
    """The LALR parser of ``grammars/pddl.lark`` with its keyword post-lexer and the readable
    names of its terminals (for error messages). One per process (:data:`_get_parser`); it
    serves every thread."""

    def __init__(self) -> None:
        self._boundary = _KeywordBoundary()
        self._lark = Lark(grammar_text("pddl.lark"), parser="lalr", lexer="contextual",
                          transformer=_ToAst(), maybe_placeholders=False, cache=True,
                          postlex=self._boundary)
        terminals = self._lark.terminals
        self._boundary.keywords = frozenset(
            t.name for t in terminals if t.pattern.type == "str"
            and (t.pattern.value[:1].isalpha() or t.pattern.value[:1] == ":"))
        self.readable: dict[str, str] = {
            t.name: (f"'{t.pattern.value}'" if t.pattern.type == "str" else t.name)
            for t in terminals}
        self.readable.update(_READABLE)

    def parse(self, lowered: str):
        self._boundary.local.text = lowered
        return self._lark.parse(lowered)


_get_parser = built_once(_PddlParser)


MAX_NESTING = 256
_COMMENT = re.compile(r";[^\n]*")
_PAREN = re.compile(r"[()]")
_STEP = {"(": 1, ")": -1}


def _check_nesting(text: str, filename: str | None) -> None:
    """Refuse parentheses nested deeper than :data:`MAX_NESTING`.

    The LALR parse is iterative and accepts any depth, but every later pass (checker,
    simulator, normaliser, writer) walks formulas recursively and would hit Python's
    recursion limit near 1000 levels. No real domain comes near 256 levels, so the limit
    costs nothing and turns a crash into a located error. The scan is C-speed
    (``findall`` + ``accumulate``); the slow locating loop runs only on failure.
    """
    if text.count("(") <= MAX_NESTING:
        return
    body = _COMMENT.sub(lambda m: " " * len(m.group()), text) if ";" in text else text
    if max(accumulate(map(_STEP.__getitem__, _PAREN.findall(body))), default=0) <= MAX_NESTING:
        return
    depth = 0
    for m in _PAREN.finditer(body):
        depth += _STEP[m.group()]
        if depth > MAX_NESTING:
            idx = m.start()
            raise PDDLSyntaxError(
                f"parentheses nested more than {MAX_NESTING} levels deep; expected at most "
                f"{MAX_NESTING} (is a ')' missing?)", file=filename,
                line=text.count("\n", 0, idx) + 1, column=idx - (text.rfind("\n", 0, idx) + 1) + 1)


def parse(text: str, filename: str | None = None) -> pddl.Domain | pddl.Problem:
    """Parse a domain or a problem, whichever the text is."""
    if not text.strip() or not _COMMENT.sub("", text).strip():
        raise PDDLSyntaxError("the file is empty (or only comments); expected (define (domain ...)) or "
                              "(define (problem ...))", file=filename, line=1, column=1)
    if "\x00" in text:
        idx = text.index("\x00")
        line = text.count("\n", 0, idx) + 1
        raise PDDLSyntaxError("binary data (NUL byte); expected PDDL text", file=filename,
                              line=line, column=idx - (text.rfind("\n", 0, idx) + 1) + 1)
    parser = _get_parser()
    lowered = text.lower()
    flat = fast_init.flat_init(lowered) if len(lowered) > fast_init.FAST_INIT_MIN else None
    if flat is not None:
        lowered = flat.blanked
    goal = fast_init.flat_goal(lowered) if len(lowered) > fast_init.FAST_INIT_MIN else None
    if goal is not None:
        lowered = goal.blanked
    try:
        result = parser.parse(lowered)
    except UnexpectedInput as err:
        raise explain_syntax_error(text, err, filename, parser.readable) from None
    except PlanningError as err:  # raised by the transformer, which has no file name
        err.file = filename
        raise
    except RecursionError:
        raise PDDLSyntaxError("formula nested too deeply", file=filename) from None
    except Exception as err:  # a transformer error wrapped by lark
        inner = getattr(err, "orig_exc", None)
        if isinstance(inner, PlanningError):
            inner.file = filename
            raise inner from None
        raise
    _check_nesting(text, filename)
    if flat is not None and isinstance(result, pddl.Problem):
        result = replace(result, init=flat.atoms + result.init,
                         numeric_init=flat.numeric + result.numeric_init)
    if goal is not None and isinstance(result, pddl.Problem) and result.goal == pddl.And(()):
        result = replace(result, goal=pddl.And(goal.atoms))
    return _with_filename(result, filename)


def _with_filename(node, filename):
    return node if filename is None else replace(node, filename=filename)


def parse_domain(text: str, filename: str | None = None) -> pddl.Domain:
    node = parse(text, filename)
    if not isinstance(node, pddl.Domain):
        raise PDDLSyntaxError("expected a domain, found a problem definition "
                              f"('{node.name}')", file=filename, line=node.pos.line if node.pos else None,
                              column=node.pos.column if node.pos else None)
    return node


def parse_problem(text: str, filename: str | None = None) -> pddl.Problem:
    node = parse(text, filename)
    if not isinstance(node, pddl.Problem):
        raise PDDLSyntaxError("expected a problem, found a domain definition "
                              f"('{node.name}')", file=filename, line=node.pos.line if node.pos else None,
                              column=node.pos.column if node.pos else None)
    return node


def parse_domain_file(path: str | Path) -> pddl.Domain:
    return parse_domain(read_text(path), str(path))


def parse_problem_file(path: str | Path) -> pddl.Problem:
    return parse_problem(read_text(path), str(path))
