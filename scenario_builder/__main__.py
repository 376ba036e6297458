from scenario_builder.cli import main

if __name__ == "__main__":
    main()
