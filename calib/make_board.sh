#!/bin/sh
# calib/make_board.sh [BUILD_DIR]: regenerates calib/charuco-board.png, the ChArUco board
# for the optional lens calibration (10 x 7 squares of 25 mm, DICT_5X5_100, 12 px/mm).
set -eu
cd "$(dirname "$0")/.."
"${1:-build}/src/app/karuta-ref" calibrate --write-board calib/charuco-board.png
