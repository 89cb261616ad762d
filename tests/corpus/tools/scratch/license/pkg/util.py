# Copyright (c) Acme Corp
# SPDX-License-Identifier: Apache-2.0
"""Utilities."""
import os


def home():
    # FIXME: respect XDG_CONFIG_HOME
    return os.path.expanduser("~")  # TODO(ana): windows
