#!/bin/bash
# Install Fenix Table as a service on Raspberry Pi OS (Bookworm or later, Lite is enough).
#
#   sudo systemd/install.sh              install or upgrade, enable and (re)start
#   sudo systemd/install.sh --uninstall  stop and remove service and program
#                                        (keeps /etc/fenix-table and the games)
#   systemd/install.sh --dry-run         print the commands instead of running them
#                                        (what exists already is checked for real)
#
# Safe to run again: existing configuration, user and virtual environment are kept; the
# program is reinstalled from this checkout and the service restarted.
set -euo pipefail

APP=fenix-table
SERVICE_USER=fenix
GROUPS_NEEDED=(video render gpio input)
# picamera2/libcamera and lgpio only exist as apt packages; numpy from apt saves a download;
# pygame's own SDL draws through KMS/DRM with the Mesa libraries below.
APT_PACKAGES=(python3-venv python3-pip python3-picamera2 python3-libcamera python3-lgpio
              python3-numpy libgbm1 libdrm2 libegl1 libgles2)

usage() {
    cat <<'USAGE'
usage: install.sh [--dry-run] [--uninstall [--purge]] [--no-start] [--prefix DIR]
                  [--source DIR]

  --dry-run    print every command instead of running it (no root needed)
  --uninstall  stop, disable and remove the service and /opt/fenix-table
  --purge      with --uninstall: also remove /etc/fenix-table, the game database in
               /var/lib/fenix-table and the fenix user
  --no-start   enable the service but do not (re)start it now
  --prefix DIR put files under DIR instead of / (staging and tests); the system-wide
               steps (apt, user, starting the service) are skipped
  --source DIR the Fenix Table checkout to install (default: this script's checkout)
USAGE
}

DRY_RUN=0
UNINSTALL=0
PURGE=0
START=1
PREFIX=""
SOURCE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --uninstall) UNINSTALL=1 ;;
        --purge) PURGE=1 ;;
        --no-start) START=0 ;;
        --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }
                  PREFIX="${2%/}"; shift ;;
        --prefix=*) PREFIX="${1#--prefix=}"; PREFIX="${PREFIX%/}" ;;
        --source) [ $# -ge 2 ] || { echo "install.sh: --source needs a directory" >&2; exit 2; }
                  SOURCE_DIR="$2"; shift ;;
        --source=*) SOURCE_DIR="${1#--source=}" ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

if [ "$PURGE" = 1 ] && [ "$UNINSTALL" = 0 ]; then
    echo "install.sh: --purge only goes with --uninstall" >&2
    exit 2
fi

APP_DIR="$PREFIX/opt/$APP"
VENV="$APP_DIR/venv"
# pip builds in the source tree; a root-owned copy keeps the user's checkout clean.
STAGE="$APP_DIR/src"
CONFIG_DIR="$PREFIX/etc/$APP"
CONFIG_FILE="$CONFIG_DIR/config.toml"
UNIT_DIR="$PREFIX/etc/systemd/system"
UNIT_FILE="$UNIT_DIR/$APP.service"
STATE_DIR="$PREFIX/var/lib/$APP"
# With a prefix nothing outside it may change: no apt, no users, no running services.
SYSTEM=1
[ -n "$PREFIX" ] && SYSTEM=0

# Run a command, or print it (shell-quoted, one per line) with --dry-run.
run() {
    if [ "$DRY_RUN" = 1 ]; then
        printf '%q' "$1"
        shift
        [ $# -gt 0 ] && printf ' %q' "$@"
        printf '\n'
    else
        "$@"
    fi
}

# The same for a command whose normal output is not wanted (errors still show).
run_quiet() {
    if [ "$DRY_RUN" = 1 ]; then
        run "$@"
    else
        "$@" >/dev/null
    fi
}

say() {
    # Progress goes to stderr so a dry run's stdout is exactly the command list.
    echo "install.sh: $*" >&2
}

systemctl_files() {
    # enable/disable only edit symlinks: with a prefix, do that inside the prefix.
    if [ "$SYSTEM" = 1 ]; then
        run systemctl "$@"
    else
        run systemctl --root="$PREFIX" "$@"
    fi
}

# A fresh copy of the checkout without git data, virtualenvs and build leftovers.
COPY_EXCLUDES=(--exclude=.git --exclude=.venv --exclude=build --exclude='*.egg-info'
               --exclude=__pycache__)
copy_source() {
    run rm -rf "$STAGE"
    run mkdir -p "$STAGE"
    if [ "$DRY_RUN" = 1 ]; then
        printf 'tar -C %q' "$SOURCE_DIR"
        printf ' %q' "${COPY_EXCLUDES[@]}"
        printf ' -cf - . | tar -C %q -xf -\n' "$STAGE"
    else
        tar -C "$SOURCE_DIR" "${COPY_EXCLUDES[@]}" -cf - . | tar -C "$STAGE" -xf -
    fi
}

check_source() {
    for needed in pyproject.toml fenix_table/cli.py systemd/$APP.service systemd/config.toml; do
        if [ ! -f "$SOURCE_DIR/$needed" ]; then
            echo "install.sh: $SOURCE_DIR is not a Fenix Table checkout (no $needed)" >&2
            exit 2
        fi
    done
}

check_root() {
    if [ "$DRY_RUN" = 0 ] && [ "$SYSTEM" = 1 ] && [ "$(id -u)" != 0 ]; then
        echo "install.sh: run as root (sudo $0), or try --dry-run" >&2
        exit 2
    fi
}

install_app() {
    check_source
    if [ "$SYSTEM" = 1 ]; then
        say "installing system packages (camera, GPIO, display)"
        run apt-get update
        if [ "$DRY_RUN" = 0 ] && ! apt-cache show python3-picamera2 >/dev/null 2>&1; then
            echo "install.sh: apt knows no python3-picamera2: this needs Raspberry Pi OS" \
                 "(Bookworm or later)" >&2
            exit 2
        fi
        run apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
        if id -u "$SERVICE_USER" >/dev/null 2>&1; then
            say "user $SERVICE_USER exists"
        else
            run useradd --system --user-group --home-dir "/var/lib/$APP" --no-create-home \
                --shell /usr/sbin/nologin "$SERVICE_USER"
        fi
        for group in "${GROUPS_NEEDED[@]}"; do
            # A group missing on this system (render on old images) is skipped; a dry run,
            # usually made on another machine, shows them all.
            if [ "$DRY_RUN" = 1 ] || getent group "$group" >/dev/null; then
                run usermod --append --groups "$group" "$SERVICE_USER"
            fi
        done
    else
        say "prefix $PREFIX: skipping apt packages and the $SERVICE_USER user"
    fi

    if [ -x "$VENV/bin/python" ]; then
        say "virtual environment $VENV exists"
    else
        # --system-site-packages: picamera2, libcamera and lgpio come from apt and cannot
        # be pip-installed; the venv sees them, pip installs the rest.
        run python3 -m venv --system-site-packages "$VENV"
    fi
    copy_source
    run "$VENV/bin/pip" install --quiet --upgrade pip
    # picamera2's compiled helpers (simplejpeg) are built against apt's numpy; a numpy from
    # PyPI in the venv (opencv-python-headless >= 4.12 pulls numpy 2) makes `import picamera2`
    # fail with "numpy.dtype size changed". Holding numpy at apt's version makes pip choose
    # wheels that fit it.
    NUMPY_PIN=()
    numpy_version=$(python3 -c 'import numpy; print(numpy.__version__)' 2>/dev/null || true)
    if [ -n "$numpy_version" ]; then
        NUMPY_PIN=("numpy==$numpy_version")
    fi
    run "$VENV/bin/pip" install --quiet "$STAGE" ${NUMPY_PIN[@]+"${NUMPY_PIN[@]}"}
    # Same version number, new code: replace the package itself (not its dependencies).
    run "$VENV/bin/pip" install --quiet --no-deps --force-reinstall "$STAGE"

    if [ -f "$CONFIG_FILE" ]; then
        say "keeping $CONFIG_FILE"
    else
        run install -m 644 -D "$SOURCE_DIR/systemd/config.toml" "$CONFIG_FILE"
    fi
    # Catch a bad configuration now rather than in a restart loop at boot.
    if [ "$SYSTEM" = 1 ]; then
        run_quiet "$VENV/bin/fenix-table" --config "$CONFIG_FILE" config show
        run install -d -m 755 -o "$SERVICE_USER" -g "$SERVICE_USER" "$STATE_DIR"
    fi

    run install -m 644 -D "$SOURCE_DIR/systemd/$APP.service" "$UNIT_FILE"
    systemctl_files enable "$APP.service"
    if [ "$SYSTEM" = 1 ]; then
        # The table owns tty1 (see the unit); console logins stay on tty2 and over ssh.
        run systemctl disable getty@tty1.service
        run systemctl daemon-reload
        if [ "$START" = 1 ]; then
            run systemctl restart "$APP.service"
            say "started; follow it with: journalctl -u $APP -f"
        fi
    fi
    say "done: configuration in ${CONFIG_FILE}"
}

uninstall_app() {
    if [ -f "$UNIT_FILE" ]; then
        if [ "$SYSTEM" = 1 ]; then
            run systemctl stop "$APP.service"
        fi
        systemctl_files disable "$APP.service"
        run rm -f "$UNIT_FILE"
        if [ "$SYSTEM" = 1 ]; then
            run systemctl enable getty@tty1.service
            run systemctl daemon-reload
        fi
    else
        say "no service installed at $UNIT_FILE"
    fi
    if [ -d "$APP_DIR" ]; then
        run rm -rf "$APP_DIR"
    fi
    if [ "$PURGE" = 1 ]; then
        run rm -rf "$CONFIG_DIR" "$STATE_DIR"
        if [ "$SYSTEM" = 1 ] && id -u "$SERVICE_USER" >/dev/null 2>&1; then
            run userdel "$SERVICE_USER"
        fi
    else
        say "kept $CONFIG_DIR and $STATE_DIR (games); --purge removes them"
    fi
    say "uninstalled"
}

check_root
if [ "$UNINSTALL" = 1 ]; then
    uninstall_app
else
    install_app
fi
