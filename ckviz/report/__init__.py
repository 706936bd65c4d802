"""`ckviz report`: results files -> a self-contained HTML page and/or GitHub-flavoured Markdown.

Reads results only (never Redis): sources -> views (the figures' numbers) -> findings, plots,
documents. Only `plots` imports matplotlib, so Markdown alone (`--headless --summary-md`) stays
light."""
