# Sourced by scripts/with-keyring.sh and scripts/e2e.sh: a private D-Bus session whose
# Secret Service is a throwaway gnome-keyring, unlocked.
#
# D-Bus itself starts the daemon (bus activation), from a service file that unlocks the
# login keyring with the throwaway password. If the daemon dies mid-run, the next keyring
# call starts an unlocked one again over the same keyring files. The system's own service
# file would start a daemon whose keyring stays locked behind a password prompt no one can
# answer, and every later keyring call would fail ("Cannot create an item in a locked
# collection"): one dead daemon once failed a whole CI run that way.

# keyring_bus_config DIR PASSWORD: writes DIR/bus.conf, a session bus configuration for
# `dbus-run-session --config-file`, and the service file it activates. DIR must exist.
keyring_bus_config() {
  local dir="$1" password="$2"
  mkdir -m 700 -p "$dir/services"
  # printf is a shell builtin: the password is not on any process's command line.
  cat >"$dir/secret-service" <<SCRIPT
#!/bin/sh
printf '%s' '$password' | exec gnome-keyring-daemon --unlock --foreground --components=secrets
SCRIPT
  chmod 700 "$dir/secret-service"
  cat >"$dir/services/org.freedesktop.secrets.service" <<SERVICE
[D-BUS Service]
Name=org.freedesktop.secrets
Exec=$dir/secret-service
SERVICE
  # The session bus's stock policy, with our service directory ahead of the standard ones
  # (the first directory that names a service wins).
  cat >"$dir/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <servicedir>$dir/services</servicedir>
  <standard_session_servicedirs/>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
}

# The PID owning org.freedesktop.secrets, or nothing.
keyring_bus_pid() {
  local reply
  reply="$(dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus \
    /org/freedesktop/DBus org.freedesktop.DBus.GetConnectionUnixProcessID \
    string:org.freedesktop.secrets 2>/dev/null)" || return 0
  printf '%s\n' "${reply##* }"
}

# Inside the session: starts the Secret Service and waits until it owns its name.
keyring_bus_start() {
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.StartServiceByName string:org.freedesktop.secrets uint32:0 >/dev/null ||
    true
  export GNOME_KEYRING_CONTROL="$XDG_RUNTIME_DIR/keyring"
  for _ in $(seq 100); do
    if [ -n "$(keyring_bus_pid)" ]; then
      return 0
    fi
    sleep 0.1
  done
  echo "gnome-keyring-daemon did not start its Secret Service within 10 s" >&2
  return 1
}

# Inside the session: stops whichever daemon serves now (a restarted one has a new PID).
keyring_bus_stop() {
  local pid
  pid="$(keyring_bus_pid)"
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
  fi
}
