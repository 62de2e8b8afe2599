"""IR-to-IR passes, each a small module with one job."""
