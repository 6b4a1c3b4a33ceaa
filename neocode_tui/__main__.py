from neocode_tui.cli import main

raise SystemExit(main())
