"""``python -m tests.adversarial [FOLDER]``: write the adversarial cases into FOLDER to look at them."""

import sys

from tests.adversarial import main

main(sys.argv[1:])
