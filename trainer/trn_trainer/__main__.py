from .cli import main
from .process_exit import exit_without_teardown

exit_without_teardown(main())
