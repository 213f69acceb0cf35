"""Edits that turn a tagged, passing base document into labelled variants, one module per criterion.

``CRITERION_MUTATIONS`` maps each criterion to its failure edits and its Not Present edit;
an edit is a pikepdf :data:`Mutation` or a :class:`Rerender` of the base document's content.
A mutation raises :class:`NotApplicable` when the document lacks what it would edit, and the
caller tries the next one.
"""

from corpus.mutations.registry import CRITERION_MUTATIONS, CriterionMutations, Edit, Rerender, failed_order
from corpus.mutations.structure import Mutation, NotApplicable

__all__ = ["CRITERION_MUTATIONS", "CriterionMutations", "Edit", "Mutation", "NotApplicable", "Rerender",
           "failed_order"]
