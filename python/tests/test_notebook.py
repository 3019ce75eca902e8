"""The quickstart notebook runs from top to bottom, as a user runs it."""

import nbformat
from nbclient import NotebookClient

from conftest import REPO


def test_the_quickstart_notebook_runs(tmp_path):
    notebook = nbformat.read(REPO / "examples" / "quickstart.ipynb", as_version=4)
    NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 2, "the loss plot and the rollout are drawn"
    assert (tmp_path / "checkerboard.json").is_file()
