"""Search or model: link each question's retrieval outcome to the verdict on the assistant's answer.

``cells`` is the pure linking (an evaluation and verdicts in, the 2 × 2 table out), ``result`` the
value model, ``judge`` the optional OpenAI-compatible answer judge, ``run`` the end-to-end call.
"""
