"""A startup-log calibration's URL parameters (the calibration carried in a share link).

Rows of :data:`dashboard.state.PARAMS`, built from :class:`dashboard.url_params.Param`; see
dashboard.state for how the link is checked and carried between pages.
"""
from __future__ import annotations

from .url_params import Param

CALIBRATION_PARAMS: tuple[Param, ...] = ()
