"""Renderers: DOT, SVG, JSON, the summary and the listing. They read analysed models, never input text."""
