"""A package's lazy exports (PEP 562) import their module on first use only, and name what is missing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from common.lazy_exports import lazy_exports


def test_a_lazy_name_imports_its_module_when_first_asked_for_and_is_kept() -> None:
    namespace: dict[str, object] = {"__name__": "pkg"}
    getattr_ = lazy_exports(namespace, {"dedent": "textwrap", "nothing": "textwrap"})
    import textwrap

    assert getattr_("dedent") is textwrap.dedent and namespace["dedent"] is textwrap.dedent
    with pytest.raises(AttributeError, match="module 'pkg' has no attribute 'other'"):
        getattr_("other")
    with pytest.raises(AttributeError):  # exported but not defined there: an AttributeError, as an eager import
        getattr_("nothing")


def test_importing_the_extractors_packages_loads_no_pdf_library() -> None:
    code = ("import sys, extractors, extractors.layout, extractors.transcript, extractors.errors, "
            "extractors.stream_limits, extractors.order_agreement\n"
            "print(sorted(m for m in ('pymupdf', 'pikepdf', 'onnxruntime', 'page') if sys.modules.get(m)))\n"
            "from extractors import render_pages\n"
            "print('pymupdf' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["[]", "True"]
