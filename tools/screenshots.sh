#!/usr/bin/env bash
# Screenshots of the real window (issue 13): the demo at 1024x700, 1400x900
# and 1920x1080, in the dark and the light theme, as demo-WxH-THEME.png.
#
#   tools/screenshots.sh BINARY OUT_DIR [DISPLAY_NUMBER] [STEP] [KEYS] [NAME]
#
# BINARY is a built agui-replay (this script builds nothing), OUT_DIR where
# the PNGs go, DISPLAY_NUMBER the X display to start Xvfb on (default 97),
# STEP how many times → is pressed before the capture (default 15: step 16,
# the failed patch of search-1), KEYS keys pressed after (xdotool's names,
# e.g. "t" for the timeline in recorded time; default none), NAME the files'
# prefix (default demo). The demo is opened from a temporary copy, so
# the bundled one is never written. Needs Xvfb, xdotool and ImageMagick's
# `import`.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 BINARY OUT_DIR [DISPLAY_NUMBER] [STEP]" >&2
    exit 2
fi
binary=$(realpath "$1")
out=$2
display=":${3:-97}"
steps=${4:-15}
keys=${5:-}
name=${6:-demo}
here=$(cd "$(dirname "$0")/.." && pwd)
demo="$here/recordings/demo.rec"

for tool in Xvfb xdotool import; do
    command -v "$tool" >/dev/null || { echo "$tool is not installed" >&2; exit 2; }
done
[ -x "$binary" ] || { echo "not an executable: $binary" >&2; exit 2; }
[ -f "$demo" ] || { echo "no demo recording at $demo" >&2; exit 2; }
mkdir -p "$out"

work=$(mktemp -d)
xvfb_pid=
app_pid=
cleanup() {
    [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null || true
    [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

for size in 1024x700 1400x900 1920x1080; do
    Xvfb "$display" -screen 0 "${size}x24" -nolisten tcp -noreset >/dev/null 2>&1 &
    xvfb_pid=$!
    sleep 1
    for theme in dark light; do
        copy="$work/demo-$size-$theme.rec"
        cp "$demo" "$copy"
        # Its own config directory: the run neither reads nor changes the
        # user's recent files and theme.
        XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" DISPLAY="$display" \
            "$binary" --theme "$theme" "$copy" >"$work/app.log" 2>&1 &
        app_pid=$!
        window=
        for _ in $(seq 1 100); do
            window=$(DISPLAY="$display" xdotool search --name '^agui-replay' 2>/dev/null | head -n 1 || true)
            [ -n "$window" ] && break
            sleep 0.1
        done
        if [ -z "$window" ]; then
            echo "no window appeared ($size, $theme):" >&2
            cat "$work/app.log" >&2
            exit 1
        fi
        # Fill the screen, let the demo open, step to the event shown.
        DISPLAY="$display" xdotool windowmove "$window" 0 0 windowsize "$window" "${size%x*}" "${size#*x}"
        sleep 2
        # No window manager: give the window the keyboard, and rest the
        # pointer on the status bar, where nothing shows on hover.
        DISPLAY="$display" xdotool windowfocus "$window"
        DISPLAY="$display" xdotool mousemove "$(( ${size%x*} / 2 ))" "$(( ${size#*x} - 8 ))"
        for _ in $(seq 1 "$steps"); do
            DISPLAY="$display" xdotool key Right 2>/dev/null
            sleep 0.05
        done
        for key in $keys; do
            DISPLAY="$display" xdotool key "$key" 2>/dev/null
            sleep 0.05
        done
        sleep 1.5
        DISPLAY="$display" import -window root "$out/$name-$size-$theme.png"
        echo "$out/$name-$size-$theme.png"
        kill "$app_pid" 2>/dev/null || true
        wait "$app_pid" 2>/dev/null || true
        app_pid=
    done
    kill "$xvfb_pid" 2>/dev/null || true
    wait "$xvfb_pid" 2>/dev/null || true
    xvfb_pid=
done
