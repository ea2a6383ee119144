from ragauge.cli.main import main

main()
