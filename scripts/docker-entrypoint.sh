#!/bin/sh
# The image's entrypoint: `docker run IMAGE [ARGS]` runs svir with ARGS (`check`, `--version`,
# `--port 4100`, nothing at all); a command the image has (`node ...`, `sh`) runs as given, as the
# official node images' entrypoint does. exec: svir (node) is PID 1 and gets the stop signal.
set -e
if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ] || ! command -v "$1" >/dev/null 2>&1; then
  set -- node dist/cli.js "$@"
fi
exec "$@"
