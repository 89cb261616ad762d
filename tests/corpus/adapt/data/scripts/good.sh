#!/bin/sh
set -eu
echo "hello"
