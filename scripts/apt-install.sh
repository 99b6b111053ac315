# Sourced by scripts/setup.sh and scripts/db.sh: `apt_install PKG...` installs the Debian packages
# that are missing (as root, or through sudo), logging to stderr (db.sh prints its URL on stdout).
# One package-list update per machine boot; policy-rc.d 101 while installing, so that server
# packages do not start system-wide servers of their own (the tests start throwaway ones).
apt_install() {
  local missing=() p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -gt 0 ] || return 0
  echo "installing Debian packages: ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if [ ! -e /run/isoscope-apt-updated ]; then
    $sudo apt-get update -q >&2
    $sudo touch /run/isoscope-apt-updated 2>/dev/null || true
  fi
  local policy=/usr/sbin/policy-rc.d created=0
  if [ ! -e $policy ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee $policy >/dev/null && $sudo chmod +x $policy && created=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
  local status=$?
  [ $created -eq 1 ] && $sudo rm -f $policy
  return $status
}
