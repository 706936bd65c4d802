"""Benchmark: `ckviz report` on a results file (default: a fresh default-matrix run);
prints seconds for reading, each figure kind, and the whole HTML and Markdown documents.

    uv run python bench/report.py [RESULTS.json]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(folder) / "results.json"
        if len(sys.argv) == 1:
            print("running the default matrix for a results file ...", flush=True)
            subprocess.run(
                [sys.executable, "-m", "ckviz", "--headless", "--out", str(path)],
                check=True,
                capture_output=True,
            )
        started = time.perf_counter()
        from ckviz.report import plots
        from ckviz.report.html import render_html
        from ckviz.report.markdown import render_markdown
        from ckviz.report.sources import load_sources
        from ckviz.report.views import scenario_views

        print(f"imports (matplotlib included): {time.perf_counter() - started:.2f} s")
        t = time.perf_counter()
        sources = load_sources([str(path)])
        scenarios = scenario_views(sources)
        print(f"read and summarise {path.name}: {time.perf_counter() - t:.2f} s")
        setup_s = time.perf_counter() - started
        for draw in (plots.fairness_svg, plots.wait_cdf_svg, plots.service_svg):
            t = time.perf_counter()
            sizes = [len(draw(s)) for s in scenarios]
            print(
                f"{draw.__name__}: {time.perf_counter() - t:.2f} s for {len(scenarios)} "
                f"scenarios, {sum(sizes) // 1024} KiB of SVG"
            )
        t = time.perf_counter()
        page = render_html(sources, scenarios)
        html_s = time.perf_counter() - t
        print(f"HTML document (figures drawn again): {html_s:.2f} s, {len(page) // 1024} KiB")
        t = time.perf_counter()
        md = render_markdown(sources, scenarios)
        md_s = time.perf_counter() - t
        print(f"Markdown document: {md_s:.3f} s, {len(md) // 1024} KiB")
        print(f"what `ckviz report --out --markdown` spends: {setup_s + html_s + md_s:.2f} s")


if __name__ == "__main__":
    main()
