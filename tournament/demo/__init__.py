"""Demo data for `manage.py load_demo`: two real festivals from the seed documents, laid out around now."""

from .loader import load_demo, summary_lines

__all__ = ["load_demo", "summary_lines"]
