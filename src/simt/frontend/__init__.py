"""The front end: Python source (ast) and known values in, typed IR out."""
