"""Which rules a schema-valid job file can make speak: those that read a field the file writes.

Every rule declares the job-file fields it reads (:attr:`~t2gen.jobfile.rules.Rule.fields`,
``spec.workers[].env[].name``). In a file the schema accepts, a field the file
does not write holds the schema's ``default`` (a constant: ``apply_defaults``
fills the same value into every job), so a rule none of whose fields the file
writes sees what it sees in a job that writes none of them, and there it finds
nothing. :meth:`RulePlan.rules_for` returns the rules that may find something in such a
file, in registry order: :func:`t2gen.jobfile.rules.run_rules` runs only those
(the ``UNWRITTEN_RULES`` fast path of :mod:`t2gen.fastpaths`).

Nothing here is kept by hand beside the rules: the fields are the ones
``docs/rules.md`` lists ("Reads"). ``tests/jobfile/rules/test_written.py``
checks, on every example, case and golden job file (an invalid one less the
values the schema refused) and, in ``make fuzz``, on generated ones, that a rule left out finds
nothing when run; and, on every such file a rule speaks on, that taking the
rule's fields out of it (as far as the schema lets) silences the rule, so a
rule that speaks from a field it does not declare fails the test.

Kept apart from this:

- a rule whose fields are not JSON paths (``invisible-characters`` reads
  "every key and string value") or that reads a command-line option runs always;
- a field written as a scalar or null where the rule reads deeper (``spec.placement: null``)
  counts as writing everything below it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from t2gen.jobfile.rules._base import Rule

__all__ = ["REMEMBERED", "FieldTree", "RulePlan"]

_PATH = re.compile(r"\w+(?:\[\])*(?:\.\w+(?:\[\])*)*")
_ITEM = "[]"


class FieldTree:
    """The declared fields of every rule, as a tree of keys (``[]`` for a list's items).

    Each node has one bit; a document's written fields are the OR of the bits of
    the nodes it writes (:meth:`written`), and a rule may speak when that
    meets its mask (the bits of its fields' nodes).

    Attributes:
        children: key (or ``[]``) -> the node below.
        bit: this node's bit.
        below: the bits of this node and of every node under it.
    """

    __slots__ = ("below", "bit", "children")

    def __init__(self, bit: int) -> None:
        self.children: dict[str, FieldTree] = {}
        self.bit = bit
        self.below = bit

    def written(self, value: Any) -> int:
        """The bits of the nodes under this one that ``value`` (the document at this node) writes.

        A key is written when the mapping has it (whatever its value); a
        list's items (``[]``) when the list is not empty. A scalar or null where
        the tree goes deeper writes everything below (a conservative answer
        for what the schema refuses anyway).
        """
        children = self.children
        found = 0
        kind = type(value)
        if kind is dict:
            for key in value:
                child = children.get(key)
                if child is not None:
                    found |= child.bit
                    if child.children:
                        found |= child.written(value[key])
        elif kind is list:
            child = children.get(_ITEM)
            if child is not None and value:
                found |= child.bit
                if child.children:
                    for item in value:
                        found |= child.written(item)
        elif children:
            found |= self.below
        return found


def _segments(field: str) -> list[str] | None:
    """``spec.workers[].env[].name`` -> ``[spec, workers, [], env, [], name]``; None if not a path."""
    if not _PATH.fullmatch(field):
        return None
    segments: list[str] = []
    for part in field.split("."):
        name, _, items = part.partition(_ITEM)
        segments.append(name)
        segments += [_ITEM] * (1 + items.count(_ITEM)) if part.endswith(_ITEM) else []
    return segments


class RulePlan:
    """Which of a registry's rules may speak, by the fields a job file writes.

    Built once per registry (the tree of every rule's fields and each rule's
    mask, -1 for a rule that runs always); :meth:`rules_for` per job.
    """

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = tuple(rules)
        self.root = FieldTree(0)
        self.masks: list[int] = []
        bits = 1
        for listed in self.rules:
            mask = 0
            paths = [_segments(field) for field in listed.fields]
            if listed.options or not paths or any(p is None for p in paths):
                self.masks.append(-1)
                continue
            for path in paths:
                node = self.root
                for key in path or ():
                    child = node.children.get(key)
                    if child is None:
                        child = node.children[key] = FieldTree(bits)
                        bits <<= 1
                    node = child
                mask |= node.bit
            self.masks.append(mask)
        _fill_below(self.root)
        self._chosen: dict[int, tuple[str, ...]] = {}

    def rules_for(self, written: Any) -> tuple[str, ...]:
        """The rules that may find something in a schema-valid job file.

        Args:
            written: the job file as written (``SourceDoc.data``, before
                defaults), which the schema accepts.

        Returns:
            The IDs of the rules that read a command-line option, declare a
            field that is not a JSON path, or declare a field ``written``
            writes; in registry order. Remembered for the last :data:`REMEMBERED`
            distinct sets of written fields (a set of the tree's nodes, an
            ``int``: bounded by the rules, not by the file).
        """
        bits = self.root.written(written)
        chosen = self._chosen.get(bits)
        if chosen is None:
            if len(self._chosen) >= REMEMBERED:
                self._chosen.clear()
            chosen = self._chosen[bits] = tuple(
                listed.id
                for listed, mask in zip(self.rules, self.masks, strict=True)
                if mask < 0 or mask & bits
            )
        return chosen


def _fill_below(node: FieldTree) -> int:
    """Set :attr:`FieldTree.below` of ``node`` and of every node under it; return the node's."""
    for child in node.children.values():
        node.below |= _fill_below(child)
    return node.below


REMEMBERED = 64
"""How many distinct sets of written fields :meth:`RulePlan.rules_for` remembers its answer for (a batch's jobs share a few)."""
