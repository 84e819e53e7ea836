"""The check interface: a check looks at generated records and says which to discard and why."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from kg_qgen.graph import KnowledgeGraph

__all__ = ["Check", "Reject"]


@dataclass
class Reject:
    """A discarded record, the check that failed and a human-readable reason."""

    record: dict[str, Any]
    check: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "reason": self.reason, "record": self.record}


@runtime_checkable
class Check(Protocol):
    """A verification step. Returns one :class:`Reject` per record it discards.

    Records not mentioned are kept. Checks run in order; a record rejected by an earlier check
    is not passed to later ones.
    """

    name: str

    def __call__(self, records: Sequence[dict], graph: KnowledgeGraph) -> list[Reject]: ...
