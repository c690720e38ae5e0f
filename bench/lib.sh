# Shared by the bench scripts (sourced, not run): where the tools and the
# shared fixtures are, and the median of numbers read one per line.
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${MAGI_BUILD_DIR:-$repo/build}/bin"
fixtures="$repo/../shared/fixtures/torch-export"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
