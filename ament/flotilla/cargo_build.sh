#!/usr/bin/env bash
# The workspace build of the `flotilla` ament package (CMakeLists.txt runs it from the
# repository root): cargo build --workspace --bins PROFILE into TARGET_DIR.
#
# r2r generates its message bindings again only when an environment variable it watches
# changes (AMENT_PREFIX_PATH, CMAKE_PREFIX_PATH, IDL_PACKAGE_FILTER, ...). In a colcon
# workspace the install path of flotilla_msgs stays the same when a message changes, so
# r2r would keep the old bindings: a digest of the interface files r2r binds is kept in
# the target directory, and when it changes r2r's generated crates are cleaned first.
set -euo pipefail
profile=$1 target_dir=$2

digest() {
    local prefix pkg IFS=:
    for prefix in $AMENT_PREFIX_PATH; do
        for pkg in ${IDL_PACKAGE_FILTER//;/:}; do
            [ -d "$prefix/share/$pkg" ] || continue
            find "$prefix/share/$pkg" \( -path '*/msg/*' -o -path '*/srv/*' -o -path '*/action/*' \) -type f -print0 \
                | sort -z | xargs -0 -r sha256sum
        done
    done | sha256sum | cut -c1-16
}

stamp="$target_dir/flotilla-interfaces.digest"
now=$(digest)
if [ "$(cat "$stamp" 2>/dev/null)" != "$now" ]; then
    echo "flotilla: interface packages new or changed since the last build: r2r's bindings are generated anew"
    cargo clean --profile "$profile" --target-dir "$target_dir" -p r2r -p r2r_msg_gen -p r2r_actions
fi
cargo build --workspace --bins --profile "$profile" --target-dir "$target_dir"
mkdir -p "$target_dir"
echo "$now" > "$stamp"
