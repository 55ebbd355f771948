"""A release that no skdpgd accountant can compose (every accountant refuses it)."""

from dataclasses import dataclass

from ._base import REPLACE_ONE, NeighbouringRelation, PrivacyEvent, UnsupportedEventError

__all__ = ["UnsupportedEvent"]


@dataclass(frozen=True)
class UnsupportedEvent(PrivacyEvent, kind="unsupported"):
    """A release that no skdpgd accountant can compose.

    Parameters
    ----------
    reason : str
        Why (shown in the refusal).
    relation : NeighbouringRelation, default=REPLACE_ONE
        The neighbouring relation of the release.
    """

    reason: str
    relation: NeighbouringRelation = REPLACE_ONE

    def __post_init__(self):
        object.__setattr__(self, "relation", NeighbouringRelation.parse(self.relation))

    def check_composable(self):
        """Always refuse, with :attr:`reason`."""
        raise UnsupportedEventError(
            f"This release cannot be composed by any skdpgd accountant: {self.reason}"
        )
