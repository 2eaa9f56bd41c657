"""The explorer's request handlers: validated inputs in, figures and text out. app.py wires them to Gradio."""
