"""String catalogs, one module per page or feature: STRINGS = {key: {"en": ..., "ko": ...}}."""
