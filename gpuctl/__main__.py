from gpuctl.cli.main import run

run()
