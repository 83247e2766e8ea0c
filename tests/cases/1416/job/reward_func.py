from math_verify import parse,verify
from argparse import ArgumentParser
from tqdm import tqdm
import jsonlines
import os
import re
import numpy as np
import torch
import re
import os
import signal
import json
import hashlib
from pathlib import Path

def reward_func(queries, prompts, answers):
    scores = []
    # batch

    for i in range(len(queries)):
        query = queries[i]
        # remove EOS token
        query = query.replace('</s>', '')
        try:
            answer = parse(str(answers[i]))
            prediction, _ = get_llm_answer(query)
            acc = verify(answer, prediction) * 1.0
        except Exception as e:
            acc = 0.0
        scores.append(acc)
    
    return {
        "rewards": torch.tensor(scores, dtype=torch.float)   # Required: Scores for dynamic filtering (0-1 
    }


def handler(signum, frame):
    raise TimeoutError("Execution timed out!")

def execute_function(code: str, timeout=3): 
    try:
        # Set the alarm handler
        signal.signal(signal.SIGALRM, handler)
        signal.alarm(timeout)  # Start the alarm
        local_namespace = {}
        exec(code, {}, local_namespace)
        return str(local_namespace["simple_math_problem"]())
    except TimeoutError as e:
        return None
    except Exception:
        return None
    finally:
