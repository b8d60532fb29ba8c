"""The Loop Lab (notebooks/loop_lab.ipynb): a scenario, a loop and its parts, switched and tuned from widgets.

engine.py is the logic (a configuration in, a run and its figures out), picture.py the step x tool
chart, widgets.py the ipywidgets front (ipywidgets 7 and 8 alike). Tests drive the widgets in Python.
"""
