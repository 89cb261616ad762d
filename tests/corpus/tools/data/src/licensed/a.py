# Copyright (c) 2024 Acme Corp
# SPDX-License-Identifier: MIT
from .core import parse  # noqa: F401
