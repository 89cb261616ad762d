# Copyright (c) 2024 Acme Corp
# SPDX-License-Identifier: MIT
"""Core helpers."""


def parse(text):
    # TODO: handle CRLF line endings
    return text.split("\n")
