"""Style checks of chapter 15 (kernel PCA) that no cross-cutting test makes."""

from pathlib import Path

CHAPTER = Path(__file__).resolve().parents[1] / "book" / "15_kernel_pca.md"


def code_cell_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every line inside a ``{code-cell}`` block."""
    lines, inside = [], False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("```{code-cell"):
            inside = True
        elif line.startswith("```"):
            inside = False
        elif inside:
            lines.append((number, line))
    return lines


def test_code_cell_lines_fit_88_characters():
    """The book's rule: code-cell lines are at most 88 characters (review 2, item 8)."""
    too_long = [(n, len(line)) for n, line in code_cell_lines(CHAPTER.read_text())
                if len(line) > 88]
    assert too_long == []
