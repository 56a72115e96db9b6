#!/usr/bin/env bash
# Gradescope's setup.sh: run once, as root, while Gradescope builds the autograder's image.
# It installs moonasm; the puzzles travel in the autograder's zip, under puzzles/.
set -euo pipefail
apt-get update -q && apt-get install -y -q python3 python3-pip python3-venv
python3 -m venv /opt/moonasm
# from PyPI; or ship a wheel in the zip and install it instead:
#   /opt/moonasm/bin/pip install /autograder/source/moonasm-*.whl
/opt/moonasm/bin/pip install -q moonasm
ln -sf /opt/moonasm/bin/moonasm /usr/local/bin/moonasm
moonasm --version
