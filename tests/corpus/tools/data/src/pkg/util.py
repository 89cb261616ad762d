"""Utilities."""
import os


def home():
    # FIXME: respect XDG_CONFIG_HOME
    return os.path.expanduser("~")  # TODO(ana): windows
