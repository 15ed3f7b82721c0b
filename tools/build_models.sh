#!/usr/bin/env bash
# tools/build_models.sh [BUILD_DIR] - rebuilds models/cards.krm (the default card model)
# from Debian's Japanese fonts that the synthetic footage does NOT use (the synth renders
# with IPA Mincho/Gothic and Noto Serif/Sans CJK, which stay held out for evaluation), and
# models/cards-synthfonts.krm from those four (for comparison only). See models/README.md.
# Needs: fonts-sawarabi-mincho fonts-sawarabi-gothic fonts-motoya-l-cedar
#        fonts-aoyagi-kouzan-t fonts-umeplus fonts-konatu fonts-seto fonts-kiloji
#        (and fonts-noto-cjk for the comparison model).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
F=/usr/share/fonts
"$build/tools/build_models" -o models/cards.krm --variants 1 \
  --font $F/truetype/sawarabi-mincho/sawarabi-mincho-medium.ttf=SawarabiMincho \
  --font $F/truetype/sawarabi-gothic/sawarabi-gothic-medium.ttf=SawarabiGothic \
  --font $F/truetype/motoya-l-cedar/MTLc3m.ttf=MotoyaLCedar \
  --font $F/truetype/aoyagi-kouzan-t/AoyagiKouzanT.ttf=AoyagiKouzanT \
  --font $F/truetype/umeplus/umeplus-gothic.ttf=UmePlusGothic \
  --font $F/truetype/konatu/Konatu.ttf=Konatu \
  --font $F/truetype/seto/setofont.ttf=SetoFont \
  --font $F/truetype/kiloji/kiloji.ttf=Kiloji
if [ "${KR_SYNTHFONTS:-0}" = 1 ]; then
  "$build/tools/build_models" -o models/cards-synthfonts.krm --variants 1 \
    --font $F/opentype/ipafont-mincho/ipam.ttf=IPAMincho \
    --font $F/opentype/ipafont-gothic/ipag.ttf=IPAGothic \
    --font $F/opentype/noto/NotoSerifCJK-Regular.ttc@0=NotoSerifCJKJP \
    --font $F/opentype/noto/NotoSansCJK-Regular.ttc@0=NotoSansCJKJP
fi
