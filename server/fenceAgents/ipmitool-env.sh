#!/bin/sh
# Palisade's ipmitool for fence_ipmilan (--ipmitool-path). fence_ipmilan passes the BMC password
# to ipmitool as `-P <password>`, where any local user sees it in ps until ipmitool overwrites
# it. Palisade gives fence_ipmilan no password, so it passes `-P ''`, and puts the password in
# the agent's environment as IPMI_PASSWORD (readable by its own user only). This runs ipmitool
# with -E in place of -P: ipmitool reads the password from IPMI_PASSWORD, and no command line
# ever holds it.
for arg do
  shift
  if [ -n "$skip" ]; then skip=; continue; fi
  if [ "$arg" = -P ]; then skip=1; set -- "$@" -E; continue; fi
  set -- "$@" "$arg"
done
exec ipmitool "$@"
