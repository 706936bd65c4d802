"""The app's themes beyond Textual's: the projector theme, for a meeting room. Black on white
(a projector washes out dark backgrounds), strong hues, every text colour at least 4.5:1 and
every graphic at least 3:1 against the grounds it is drawn on (WCAG 2.1; tested)."""

from __future__ import annotations

from textual.theme import Theme

DEFAULT_THEME = "textual-dark"
PROJECTOR = Theme(
    name="ckviz-projector",
    primary="#0b3d91",
    secondary="#5a1f8a",
    accent="#8f2d00",
    warning="#7a4600",
    error="#b0001e",
    success="#006428",
    foreground="#000000",
    background="#ffffff",
    surface="#ffffff",
    panel="#e6e6e6",
    boost="#00000010",
    dark=False,
    variables={
        "text-muted": "#3d3d3d",  # Textual's is 60% of the text: too faint on a projector
        "footer-key-foreground": "#0b3d91",
        "footer-description-foreground": "#000000",
        "block-cursor-background": "#0b3d91",
        "block-cursor-foreground": "#ffffff",
    },
)
THEMES = (DEFAULT_THEME, "textual-light", PROJECTOR.name)  # what `t` cycles through
