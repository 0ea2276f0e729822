"""String catalogs, one module per page or feature: STRINGS = {key: {"en": ..., "ko": ...}}, read by ``mha.core.i18n``.
Plain data: imports nothing (the lowest layer, ``.importlinter``); every other layer may read it."""
