from admitdx.cli import main

main()
