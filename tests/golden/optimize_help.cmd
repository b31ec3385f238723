optimize --help
