"""The one module that creates, replaces and edits files, and finds the workspace.

Every command that writes goes through here, so one policy holds everywhere:

- a link where jp-migrate writes is refused: never followed, never replaced;
- a new file is made exclusively beside its target, then renamed over it (or
  linked into place), so readers see the old bytes or the new, never a mix;
- a file is replaced only if it is still what was read (size, mtime, digest):
  a file changed in between is refused, never overwritten;
- nothing is written outside the workspace root (or storage root, or the
  repository for `check`) unless the user named that path on the command line.

`safepath` and `write` are the store's no-follow primitives (paths checked one
component at a time); `edit` is the compare-and-swap read and replace the other
commands use; `workspace` finds the `.jp` workspace and opens directories inside
its boundary without following a link.
"""
