"""``python -m tests.helpers.adversarial [FOLDER]``: write the adversarial cases into FOLDER to look at them."""

import sys

from tests.helpers.adversarial import main

main(sys.argv[1:])
