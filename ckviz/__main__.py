from ckviz.cli import run

run()
